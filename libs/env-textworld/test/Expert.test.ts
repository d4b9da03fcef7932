import fc from 'fast-check'
import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Expert.js'
import { maxScore, score } from '../src/Game.js'
import * as Rules from '../src/Rules.js'
import { bfsShortest, cookingSettings, customSettings, gameOf, randomState, replay } from './fixtures.js'

const seed = fc.integer({ min: 0, max: 2 ** 31 - 1 })
const planOf = (o: O.Option<ReadonlyArray<string>>): ReadonlyArray<string> => {
  if (O.isNone(o)) throw new Error('no plan')
  return o.value
}

describe('Expert', () => {
  for (const name of [...customSettings, ...cookingSettings])
    it(`${name}: from a random reachable state the plan wins, and the score is then maxScore`, () => {
      fc.assert(
        fc.property(seed, fc.integer({ min: 0, max: 40 }), (n, steps) => {
          const game = gameOf(name, n)
          const state = randomState(game, n ^ 0x5bd1e995, steps)
          const out = replay(game, state, planOf(_.plan(game)(state)))
          expect(out.won).toBe(true)
          expect(score(out.state)).toBe(maxScore(game))
        }),
        { numRuns: 200 }
      )
    })

  it('is optimal from random reachable states: its plan is as short as an exhaustive BFS over admissible commands', () => {
    for (const [name, runs] of [
      ['w2-o3-q4', 150],
      ['w3-o4-q5', 40],
      ['tw-simple-dense-detailed', 10]
    ] as const)
      fc.assert(
        fc.property(seed, fc.integer({ min: 1, max: 30 }), (n, steps) => {
          const game = gameOf(name, n)
          const state = randomState(game, n + 1, steps)
          const plan = planOf(_.plan(game)(state))
          fc.pre(plan.length <= 6)
          expect(bfsShortest(game, state, plan.length)).toBe(plan.length)
        }),
        { numRuns: runs }
      )
  })

  it('finds the key again after the player hid it in another container and locked things', () => {
    const game = gameOf('tw-simple-dense-detailed', 4)
    const holder = game.quest.walkthrough[0]!.replace('open ', '')
    const state = replay(game, game.initial, [
      `open ${holder}`,
      `take old key from ${holder}`,
      'unlock wooden door with old key',
      'open wooden door',
      'close wooden door',
      'lock wooden door with old key',
      holder === 'chest drawer' ? 'open antique trunk' : 'open chest drawer',
      `insert old key into ${holder === 'chest drawer' ? 'antique trunk' : 'chest drawer'}`,
      `close ${holder === 'chest drawer' ? 'antique trunk' : 'chest drawer'}`
    ]).state
    const plan = planOf(_.plan(game)(state))
    expect(plan.slice(0, 2)).toEqual([
      `open ${holder === 'chest drawer' ? 'antique trunk' : 'chest drawer'}`,
      `take old key from ${holder === 'chest drawer' ? 'antique trunk' : 'chest drawer'}`
    ])
    expect(plan).toHaveLength(game.quest.walkthrough.length)
    expect(replay(game, state, plan).won).toBe(true)
  })

  it('has no plan once the episode is over (won or lost)', () => {
    const game = gameOf('tw-simple-sparse-detailed', 9)
    const food = /^put (.+) on stove$/.exec(game.quest.walkthrough[game.quest.walkthrough.length - 1]!)![1]!
    const beforePut = replay(game, game.initial, game.quest.walkthrough.slice(0, -1)).state
    const lost = Rules.step(game)(beforePut, `eat ${food}`)
    expect(lost.lost).toBe(true)
    expect(_.plan(game)(lost.state)).toEqual(O.none)
    expect(_.nextAction(game)(replay(game, game.initial, game.quest.walkthrough).state)).toEqual(O.none)
    expect(_.nextAction(game)(game.initial)).toEqual(O.some(game.quest.walkthrough[0]))
  })
})
