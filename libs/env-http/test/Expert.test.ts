import * as O from 'fp-ts/lib/Option.js'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as Episode from '../src/Episode.js'
import * as _ from '../src/Expert.js'
import * as LockEnv from './fixtures/LockEnv.js'

describe('Expert', () => {
  it('fromEnv asks the expert with the environment being played; none ends the episode', async () => {
    const seen: unknown[] = []
    const env = LockEnv.make()
    let k = 0
    const agent = _.fromEnv((e: typeof env) => {
      seen.push(e)
      return k < 3 ? O.some(LockEnv.combination(8)[k++]!) : O.none
    })
    const won = await Episode.play()(agent)(env, 8)()
    expect(E.isRight(won) && won.right.won).toBe(true)
    expect(seen.every((e) => e === env)).toBe(true)
    const stuck = await Episode.play()(agent)(env, 9)()
    expect(E.isLeft(stuck) && Episode.message(stuck.left)).toContain('the expert has no action at turn 0')
  })

  it('replay plays the plan of the seed and fromActions the same list for every seed', async () => {
    const played = await Episode.play()(_.replay(LockEnv.combination))(LockEnv.make(), 21)()
    expect(E.isRight(played) && played.right.turns.map((t) => t.action)).toEqual(LockEnv.combination(21))
    const fixed = await Episode.play({ maxTurns: 2 })(_.fromActions(['a', 'b']))(LockEnv.make(), 1)()
    expect(E.isRight(fixed) && fixed.right.turns.map((t) => t.action)).toEqual(['a', 'b'])
  })
})
