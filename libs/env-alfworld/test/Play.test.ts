import { Arbitraries } from '@mtrl/testing'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as AlfWorld from '../src/AlfWorld.js'
import * as _ from '../src/Play.js'
import { splits } from '../src/Split.js'
import { taskTypes } from '../src/Task.js'

describe('Play', () => {
  it('the expert session of any game is won and its transcript shows every turn', () => {
    fc.assert(
      fc.property(Arbitraries.seed, fc.constantFrom(...splits), fc.constantFrom(...taskTypes), (seed, split, task) => {
        const session = _.expert({ seed, split, task })
        expect(session.won).toBe(true)
        const text = _.render(session)
        expect(text.startsWith(`alfworld/${split} seed ${seed}: ${task}`)).toBe(true)
        expect(text).toContain(session.start.goal)
        for (const turn of session.turns) expect(text).toContain(`> ${turn.action}\n${turn.result.observation}`)
        expect(text.endsWith(`*** Won in ${session.turns.length} turns (score 1/1) ***`)).toBe(true)
      }),
      { numRuns: 60 }
    )
  })

  it('starts the same game as the Env for that seed, split and task', async () => {
    const session = _.start({ seed: 3, split: 'valid-unseen', task: 'pick_heat_then_place_in_recep' })
    const first = await AlfWorld.make({ split: 'valid-unseen', taskTypes: ['pick_heat_then_place_in_recep'] }).reset(3)()
    expect(first).toEqual(E.right(session.start))
  })

  it('a finished session does not move; the last turn text shows the outcome', () => {
    const session = _.start({ seed: 0, maxTurns: 2 })
    const over = _.step('look')(_.step('dance')(session))
    expect(over.done).toBe(true)
    expect(over.won).toBe(false)
    expect(_.step('look')(over)).toBe(over)
    expect(_.lastTurnText(over)).toMatch(/^> look\n.*\n\*\*\* Out of turns after 2 \(score 0\/1\) \*\*\*$/s)
    expect(_.lastTurnText(session)).toBe(session.start.text)
  })

  it('decodes CLI-style options', () => {
    expect(E.isRight(_.Options.decode({ seed: 3, split: 'valid-unseen', task: 'pick_heat_then_place_in_recep' }))).toBe(true)
    expect(E.isLeft(_.Options.decode({ seed: 3, task: 'cook' }))).toBe(true)
  })
})
