import fc from 'fast-check'
import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import * as Command from '../src/Command.js'
import * as _ from '../src/Expert.js'
import * as Game from '../src/Game.js'
import * as Scene from '../src/Scene.js'
import { taskTypes } from '../src/Task.js'
import { game, reachable } from './helpers.js'

const planOf = (state: Game.State): ReadonlyArray<string> => {
  const plan = _.plan(state)
  if (O.isNone(plan)) throw new Error('no plan')
  return plan.value
}

const replay = (state: Game.State, plan: ReadonlyArray<string>): Game.State =>
  plan.reduce((s, action) => {
    const outcome = Game.step(action)(s)
    expect(outcome.valid, action).toBe(true)
    expect(Game.won(s), `won before "${action}"`).toBe(false)
    return outcome.state
  }, state)

/** Plain BFS over every state-changing command, for small cases: the true shortest length. */
const bruteForceLength = (start: Game.State, limit: number): number | undefined => {
  const key = (s: Game.State): string => JSON.stringify([s.at, s.holding, s.objectAt, s.opened, s.flags])
  const seen = new Set([key(start)])
  let frontier = [start]
  for (let depth = 1; depth <= limit; depth++) {
    const next: Game.State[] = []
    for (const s of frontier) {
      for (const command of Game.admissibleCommands(s)) {
        const outcome = Game.apply(command)(s)
        if (Game.won(outcome.state)) return depth
        const k = key(outcome.state)
        if (seen.has(k)) continue
        seen.add(k)
        next.push(outcome.state)
      }
    }
    frontier = next
  }
  return undefined
}

describe('Expert', () => {
  for (const type of taskTypes) {
    it(`wins every ${type} game from the start`, () => {
      fc.assert(
        fc.property(game([type]), (g) => {
          const s0 = Game.start(g)
          const plan = planOf(s0)
          expect(plan.length).toBeGreaterThan(0)
          expect(Game.won(replay(s0, plan))).toBe(true)
        }),
        { numRuns: 200 }
      )
    })
  }

  it('wins from random reachable states of every task type', () => {
    fc.assert(
      fc.property(reachable(taskTypes, 40), (state) => {
        const plan = planOf(state)
        expect(Game.won(replay(state, plan))).toBe(true)
        if (Game.won(state)) expect(plan).toEqual([])
      }),
      { numRuns: 450 }
    )
  })

  it('plans are shortest: one expert step shortens the remaining plan by exactly one', () => {
    fc.assert(
      fc.property(reachable(taskTypes, 20), (state) => {
        const plan = planOf(state)
        fc.pre(plan.length > 0)
        const after = Game.step(plan[0]!)(state).state
        expect(planOf(after).length).toBe(plan.length - 1)
      }),
      { numRuns: 200 }
    )
  })

  it('plans are shortest: no plan over all commands is shorter (exhaustive search, short games)', () => {
    let checked = 0
    for (let seed = 0; checked < 12 && seed < 200; seed++) {
      const s0 = Game.start(Scene.generate('train', taskTypes)(seed))
      const plan = planOf(s0)
      if (plan.length > 4) continue
      checked++
      expect(bruteForceLength(s0, plan.length), `seed ${seed}`).toBe(plan.length)
    }
    expect(checked).toBe(12)
  })

  it('gives commands in the canonical admissible form', () => {
    fc.assert(
      fc.property(reachable(taskTypes, 10), (state) => {
        const first = _.next(state)
        if (O.isSome(first)) {
          expect(Game.admissible(state)).toContain(first.value)
          expect(Command.parse(state.game.scene)(first.value)).toBeDefined()
        }
      }),
      { numRuns: 100 }
    )
  })
})
