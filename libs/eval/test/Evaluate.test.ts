import type { Env, Trajectory } from '@mtrl/core'
import { AlfWorld } from '@mtrl/env-alfworld'
import { ChatTemplate, ModelConfig, Policy, Sampler } from '@mtrl/policy'
import { Rollout } from '@mtrl/rollout'
import { TestBackend, Toy } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Evaluate.js'

const tokenizer = Toy.tokenizer()
const template = ChatTemplate.make(tokenizer)
let policy: Policy.Policy
beforeAll(async () => {
  await TestBackend.use('cpu')
  policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 512 }), 3)
})
afterAll(() => policy.dispose())

const bandit = (closed: { n: number }): Env.EnvSource => ({
  name: 'bandit',
  maxTurns: 1,
  make: () => {
    const env = Toy.bandit('left')
    return { ...env, close: () => async () => void (closed.n += 1) }
  },
  dispose: () => undefined
})

const options = (overrides: Partial<_.Options> = {}): _.Options => ({
  ..._.defaultSettings,
  episodes: 7,
  batch: 3,
  temperature: 1,
  rollout: { ...Rollout.defaultOptions, maxTurns: 1, maxNewTokens: 2 },
  seed: 5,
  ...overrides
})

const generator = (slots: number) => ({ session: Sampler.make(policy, { slots, maxLen: 512 }), template, tokenizer, contextLength: 512 })

describe('Evaluate.resolve', () => {
  it('plays the test split unless told otherwise; validation and test seeds are disjoint ranges above every training seed', () => {
    expect(_.defaultSettings).toEqual({ episodes: 100, temperature: 0, split: 'test', seedBase: 4_000_000_000, batch: 50 })
    expect(_.resolve({ split: 'validation' })).toMatchObject({ split: 'validation', seedBase: 3_500_000_000 })
    expect(_.splitSeedBase.validation + 100_000_000).toBeLessThanOrEqual(_.splitSeedBase.test)
    expect(_.splitSeedBase.validation).toBeGreaterThan(2 ** 31)
  })

  it('names the split of an explicit seedBase, or calls it custom', () => {
    expect(_.resolve({ seedBase: 4_000_000_000 }).split).toBe('test')
    expect(_.resolve({ seedBase: 3_000_000_000 })).toMatchObject({ split: 'custom', seedBase: 3_000_000_000 })
    expect(_.resolve({ seedBase: 7, split: 'test' })).toMatchObject({ split: 'custom', seedBase: 7 })
  })
})

describe('Evaluate.run', () => {
  it('plays seeds seedBase, seedBase + 1, ... in batches, once each, and closes every env it made', async () => {
    const closed = { n: 0 }
    const seen: Trajectory.Trajectory[] = []
    const g = generator(4)
    const result = await _.run(options({ seedBase: 100, onEpisode: (e) => seen.push(e) }))(g)(bandit(closed))()
    g.session.dispose()
    expect(E.isRight(result)).toBe(true)
    if (E.isLeft(result)) return
    expect(seen.map((e) => e.seed)).toEqual([100, 101, 102, 103, 104, 105, 106])
    expect(result.right.episodes).toBe(7)
    expect(result.right.seeds).toEqual({ split: 'test', first: 100, count: 7 })
    expect(result.right.successRate).toBe(seen.filter((e) => e.won).length / 7)
    expect(closed.n).toBe(3)
  })

  it('is deterministic for a seed and uses at most the session slots', async () => {
    const once = async (slots: number, seed: number) => {
      const g = generator(slots)
      const seen: number[] = []
      const r = await _.run(options({ batch: 50, seed, onEpisode: (e) => seen.push(e.seed) }))(g)(bandit({ n: 0 }))()
      g.session.dispose()
      return { r, seen }
    }
    const a = await once(2, 5)
    const b = await once(2, 5)
    expect(a.r).toEqual(b.r)
    expect(a.seen).toEqual(Array.from({ length: 7 }, (_x, i) => _.defaultSettings.seedBase + i))
  })

  it('plays the policy alone: a rollout exploreRate is ignored', async () => {
    const play = async (rollout: Rollout.Options) => {
      const g = generator(3)
      const seen: Trajectory.Trajectory[] = []
      await _.run(options({ rollout, onEpisode: (e) => seen.push(e) }))(g)(bandit({ n: 0 }))()
      g.session.dispose()
      return seen
    }
    const plain = await play(options().rollout)
    const asked = await play({ ...options().rollout, exploreRate: 1 })
    expect(asked.flatMap((e) => e.turns.map((t) => t.explored === true))).toEqual(plain.flatMap((e) => e.turns.map(() => false)))
    expect(asked).toEqual(plain)
  })

  it('summarises per task type where the source has types', async () => {
    const source = AlfWorld.source({ taskTypes: ['pick_and_place_simple', 'look_at_obj_in_light'], maxTurns: 1 })
    const g = generator(4)
    const result = await _.run(options({ episodes: 4, batch: 4 }))(g)(source)()
    g.session.dispose()
    expect(E.isRight(result) && result.right.perTaskType).toEqual({
      pick_and_place_simple: { episodes: 2, successRate: 0 },
      look_at_obj_in_light: { episodes: 2, successRate: 0 }
    })
  })

  it('returns the environment error instead of throwing', async () => {
    const failing: Env.EnvSource = {
      name: 'broken',
      maxTurns: 1,
      make: () => ({ ...Toy.bandit(), reset: () => async () => E.left({ _tag: 'NotStarted', env: 'broken' }) }),
      dispose: () => undefined
    }
    const g = generator(2)
    const result = await _.run(options())(g)(failing)()
    g.session.dispose()
    expect(result).toEqual(E.left({ _tag: 'NotStarted', env: 'broken' }))
  })
})

describe('Evaluate.runEach', () => {
  it('evaluates every source in turn, source i on the sampling stream seed + i with its own rollout options', async () => {
    const g = generator(3)
    const sources = [bandit({ n: 0 }), { ...bandit({ n: 0 }), name: 'other' }]
    const turns: number[] = []
    const each = await _.runEach({ ...options(), rollout: (s) => (turns.push(s.maxTurns), options().rollout) })(g)(sources)()
    const alone = await Promise.all(sources.map(async (s, i) => _.run(options({ seed: 5 + i }))(g)(s)()))
    g.session.dispose()
    expect(turns).toEqual([1, 1])
    expect(each).toEqual(E.right(alone.map((r) => (E.isRight(r) ? r.right : undefined))))
  })

  it('ends with the first failure, naming its source', async () => {
    const g = generator(3)
    const broken: Env.EnvSource = {
      ...bandit({ n: 0 }),
      name: 'broken',
      make: () => ({ ...Toy.bandit('left'), reset: () => async () => E.left({ _tag: 'ResetFailed', env: 'broken', seed: 0, reason: 'down' }) })
    }
    const result = await _.runEach({ ...options(), rollout: () => options().rollout })(g)([bandit({ n: 0 }), broken, bandit({ n: 0 })])()
    g.session.dispose()
    expect(E.isLeft(result) && result.left.env).toBe('broken')
  })
})
