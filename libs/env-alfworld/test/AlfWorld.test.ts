import { Decode, EnvError } from '@mtrl/core'
import { Arbitraries } from '@mtrl/testing'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/AlfWorld.js'
import * as Expert from '../src/Expert.js'
import * as Game from '../src/Game.js'
import { splits } from '../src/Split.js'
import { taskTypes } from '../src/Task.js'

const right = <A>(e: E.Either<EnvError.EnvError, A>): A => {
  if (E.isLeft(e)) throw new Error(EnvError.message(e.left))
  return e.right
}

/** Plays the expert through the Env; returns the step results. */
const playExpert = async (env: _.AlfWorldEnv, seed: number) => {
  right(await env.reset(seed)())
  const results = []
  for (let k = 0; k < 60; k++) {
    const action = O.chain(Expert.next)(env.state())
    if (O.isNone(action)) break
    const result = right(await env.step(action.value)())
    results.push(result)
    if (result.done) break
  }
  return results
}

describe('AlfWorld', () => {
  it('decodes settings strictly, naming bad fields', () => {
    const decode = Decode.decodeStrict('alfworld settings', _.Settings)
    expect(decode({ split: 'valid-unseen', taskTypes: ['pick_two_obj_and_place'], maxTurns: 24, denseReward: true })).toEqual(
      E.right({ split: 'valid-unseen', taskTypes: ['pick_two_obj_and_place'], maxTurns: 24, denseReward: true })
    )
    const bad = decode({ split: 'test', taskTypes: [], maxTurns: 0, dense: true })
    expect(E.isLeft(bad)).toBe(true)
    const message = E.isLeft(bad) ? Decode.formatError(bad.left) : ''
    expect(message).toContain('split')
    expect(message).toContain('taskTypes: expected a non-empty list of task types')
    expect(message).toContain('maxTurns: expected a positive integer')
    const unknown = decode({ dense: true })
    expect(E.isLeft(unknown) && Decode.formatError(unknown.left)).toContain('dense: unknown field')
  })

  it('names its spec after the split, with maxTurns 50 by default', () => {
    expect(_.spec()).toEqual({ name: 'alfworld/train', maxTurns: 50, actionFormat: _.actionFormat })
    expect(_.make({ split: 'valid-unseen', maxTurns: 24 }).spec).toMatchObject({ name: 'alfworld/valid-unseen', maxTurns: 24 })
  })

  it('reset is deterministic per seed and reports the task type', async () => {
    await fc.assert(
      fc.asyncProperty(Arbitraries.seed, fc.constantFrom(...splits), async (seed, split) => {
        const a = right(await _.make({ split }).reset(seed)())
        const b = right(await _.make({ split }).reset(seed)())
        expect(a).toEqual(b)
        expect(a.info.valid).toBe(true)
        expect(a.info.extra?.['taskType']).toBe(taskTypes[seed % 6])
        expect(a.text).toContain(`Your task is to: ${a.goal}`)
        expect(a.info.admissibleActions?.every((c) => c.startsWith('go to ') || c === 'look' || c === 'inventory')).toBe(true)
      }),
      { numRuns: 50 }
    )
  })

  it('the expert wins through the Env with reward 1 (sparse) or subgoal deltas summing to maxScore (dense)', async () => {
    for (const seed of [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]) {
      const sparse = await playExpert(_.make(), seed)
      const last = sparse[sparse.length - 1]!
      expect(last).toMatchObject({ done: true, won: true, reward: 1, info: { score: 1, maxScore: 1, valid: true } })
      expect(sparse.slice(0, -1).every((r) => r.reward === 0)).toBe(true)
      const dense = await playExpert(_.make({ denseReward: true }), seed)
      const total = dense.reduce((sum, r) => sum + r.reward, 0)
      expect(total).toBe(dense[dense.length - 1]!.info.maxScore)
      expect(dense[dense.length - 1]!.info.maxScore).toBeGreaterThanOrEqual(3)
      expect(dense.filter((r) => r.reward > 0).length).toBeGreaterThanOrEqual(2)
    }
  })

  it('marks invalid actions and leaves the game unchanged', async () => {
    const env = _.make()
    right(await env.reset(4)())
    const before = env.state()
    const result = right(await env.step('fly to the moon')())
    expect(result).toMatchObject({ observation: 'Nothing happens.', reward: 0, done: false, won: false, info: { valid: false } })
    expect(env.state()).toEqual(before)
    expect(env.turn()).toBe(1)
  })

  it('ends the episode after maxTurns, then refuses to step', async () => {
    const env = _.make({ maxTurns: 3 })
    right(await env.reset(1)())
    const results = [await env.step('look')(), await env.step('look')(), await env.step('look')()].map(right)
    expect(results.map((r) => r.done)).toEqual([false, false, true])
    expect(results[2]!.info.extra?.['truncated']).toBe(true)
    expect(await env.step('look')()).toEqual(E.left(EnvError.episodeOver('alfworld/train')))
  })

  it('refuses to step before reset, and fails reset on a non-finite seed', async () => {
    const env = _.make()
    expect(await env.step('look')()).toEqual(E.left(EnvError.notStarted('alfworld/train')))
    expect(E.isLeft(await env.reset(Number.NaN)())).toBe(true)
    expect(O.isNone(env.state())).toBe(true)
  })

  it('filters task types: every episode has a type from the filter', async () => {
    const env = _.make({ taskTypes: ['pick_cool_then_place_in_recep', 'look_at_obj_in_light'] })
    for (let seed = 0; seed < 20; seed++) {
      const first = right(await env.reset(seed)())
      expect(first.info.extra?.['taskType']).toBe(seed % 2 === 0 ? 'pick_cool_then_place_in_recep' : 'look_at_obj_in_light')
      expect(O.map(Game.won)(env.state())).toEqual(O.some(false))
    }
  })

  it('source: the task type of every seed is the type of the game that seed plays', async () => {
    const settings = { split: 'valid-unseen', taskTypes: ['pick_two_obj_and_place', 'pick_heat_then_place_in_recep', 'look_at_obj_in_light'] } as const
    const source = _.source(settings)
    const env = source.make()
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -1000, max: 100_000 }), async (seed) => {
        const first = right(await env.reset(seed)())
        expect(source.taskType?.(seed)).toBe(first.info.extra?.['taskType'])
      }),
      { numRuns: 40 }
    )
  })

  it('source: replaying its expert plan wins', async () => {
    const source = _.source({ split: 'train' })
    const env = source.make()
    for (const seed of [0, 1, 2, 3, 4, 5]) {
      right(await env.reset(seed)())
      const plan = source.expertPlan?.(env) ?? []
      expect(plan.length).toBeGreaterThan(0)
      let last
      for (const action of plan) last = right(await env.step(action)())
      expect(last?.won).toBe(true)
    }
    expect(source.name).toBe('alfworld/train')
  })
})
