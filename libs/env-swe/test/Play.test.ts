import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Play.js'
import * as Swe from '../src/Swe.js'

const shared = Swe.resources({ projects: ['matrix', 'ledger'] }, 2)
afterAll(() => shared.dispose())

describe('Play', () => {
  it('plays the expert and renders a transcript that shows every turn', async () => {
    const t = await _.expert({ tier: 'easy' }, shared)(4)()
    if (E.isLeft(t)) throw new Error(JSON.stringify(t.left))
    expect(t.right).toMatchObject({ env: 'swe/easy', seed: 4, won: true, return: 1 })
    const text = _.render(t.right)
    expect(text.startsWith('=== swe/easy seed 4 ===')).toBe(true)
    expect(text).toContain('<<<<<<< SEARCH')
    expect(text.match(/^--- turn \d+ ---$/gm)?.length).toBe(t.right.turns.length)
    expect(text.endsWith('=== WON, return 1.000 ===')).toBe(true)
    expect(_.render(t.right)).toBe(text)
  })

  it('plays any agent until the turn limit', async () => {
    const env = Swe.make({ tier: 'easy', maxTurns: 3 }, shared)
    const t = await _.run(env, () => async () => 'ls')(9)()
    await env.close()()
    if (E.isLeft(t)) throw new Error(JSON.stringify(t.left))
    expect(t.right.turns.length).toBe(3)
    expect(t.right.turns.at(-1)!.result.done).toBe(true)
    expect(t.right.won).toBe(false)
  })
})
