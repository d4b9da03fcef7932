import { Rng, Trajectory, type Env } from '@mtrl/core'
import { ChatTemplate, ModelConfig, Policy, Sampler, Scoring } from '@mtrl/policy'
import { expectNoLeak, TestBackend, Toy } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Generator } from '../src/Generator.js'
import * as Layout from '../src/Layout.js'
import * as Memory from '../src/Memory.js'
import * as _ from '../src/Rollout.js'

const tokenizer = Toy.tokenizer()
const template = ChatTemplate.make(tokenizer)
let policy: Policy.Policy

beforeAll(async () => {
  await TestBackend.use('cpu')
  policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 128 }), 1)
})
afterAll(() => policy.dispose())

const withGenerator = async <A>(slots: number, contextLength: number, body: (g: Generator) => Promise<A>): Promise<A> => {
  const session = Sampler.make(policy, { slots, maxLen: contextLength })
  try {
    return await body({ session, template, tokenizer, contextLength })
  } finally {
    session.dispose()
  }
}

const options: _.Options = { ..._.defaultOptions, systemPrompt: '', maxNewTokens: 3, temperature: 1 }

const run = async (o: _.Options, envs: ReturnType<typeof Toy.corridor>[], seeds: number[], groupSize: number, contextLength = 128, seed = 0) =>
  withGenerator(envs.length, contextLength, async (g) => {
    const result = await _.run(o)(g)({ envs, seeds, groupSize, rng: Rng.make(seed) })()
    if (E.isLeft(result)) throw new Error(result.left._tag)
    return result.right
  })

describe('Rollout', () => {
  it('records the exact token sequence the policy saw: re-scoring reproduces the sampler log-probs', async () => {
    await expectNoLeak(async () => {
      const { episodes } = await run(
        options,
        [0, 1, 2, 3].map(() => Toy.corridor()),
        [7, 8],
        2
      )
      for (const { trajectory } of episodes) {
        expect(E.isRight(Trajectory.validate(trajectory))).toBe(true)
        const kinds = trajectory.segments.map((s) => s.kind)
        expect(kinds[0]).toBe('prompt')
        // prompt, then action (observation action)* : observation tokens appended once per turn
        expect(kinds.slice(1).join(',')).toBe(trajectory.turns.map(() => 'action').join(',observation,'))
        const ids = tf.tensor2d(Trajectory.tokens(trajectory), [1, Trajectory.length(trajectory)], 'int32')
        const { logprobs, entropy } = Scoring.tokenLogprobs(policy)(ids, options.temperature)
        const scored = logprobs.dataSync()
        const mask = Trajectory.actionMask(trajectory)
        const sampled = new Float32Array(mask.length)
        let at = 0
        for (const s of trajectory.segments) {
          if (s.logprobs !== undefined) sampled.set(s.logprobs, at)
          at += s.tokens.length
        }
        mask.forEach((m, i) => m === 1 && expect(scored[i]).toBeCloseTo(sampled[i]!, 4))
        tf.dispose([ids, logprobs, entropy])
      }
    })
  })

  it('gives the same group id to the episodes of one env and seed, and different ones across seeds', async () => {
    const { episodes } = await run(
      options,
      [0, 1, 2, 3, 4, 5].map(() => Toy.corridor()),
      [11, 22],
      3
    )
    const ids = episodes.map((e) => e.trajectory.groupId)
    expect(ids).toEqual(['corridor:11', 'corridor:11', 'corridor:11', 'corridor:22', 'corridor:22', 'corridor:22'])
    expect(episodes.map((e) => e.trajectory.seed)).toEqual([11, 11, 11, 22, 22, 22])
    expect(_.groupId('corridor', 11)).toBe('corridor:11')
  })

  it('is deterministic for a given rng seed', async () => {
    const a = await run(
      options,
      [0, 1].map(() => Toy.corridor()),
      [1, 2],
      1,
      128,
      5
    )
    const b = await run(
      options,
      [0, 1].map(() => Toy.corridor()),
      [1, 2],
      1,
      128,
      5
    )
    expect(a.episodes.map((e) => Array.from(Trajectory.tokens(e.trajectory)))).toEqual(b.episodes.map((e) => Array.from(Trajectory.tokens(e.trajectory))))
  })

  it('samples each slot from its own stream: a rollout cut into parts plays the same episodes as the whole', async () => {
    const play = (seeds: number[], firstSlot: number) =>
      withGenerator(seeds.length * 2, 128, async (g) => {
        const envs = seeds.flatMap(() => [Toy.corridor(), Toy.corridor()])
        const result = await _.run(options)(g)({ envs, seeds, groupSize: 2, streams: { key: 99, firstSlot } })()
        if (E.isLeft(result)) throw new Error(result.left._tag)
        return result.right.episodes.map((e) => ({ ...e, slot: e.slot + firstSlot }))
      })
    const whole = await play([1, 2, 3], 0)
    const parts = [...(await play([1], 0)), ...(await play([2, 3], 2))]
    expect(parts).toEqual(whole)
    // the streams differ from slot to slot, and from key to key: the episodes are not all alike
    const actions = (episodes: ReadonlyArray<_.Episode>) => episodes.map((e) => e.trajectory.turns.map((t) => t.action).join(' '))
    expect(new Set(actions(whole)).size).toBeGreaterThan(1)
    const otherKey = await withGenerator(6, 128, async (g) => {
      const result = await _.run(options)(g)({
        envs: [1, 2, 3, 4, 5, 6].map(() => Toy.corridor()),
        seeds: [1, 2, 3],
        groupSize: 2,
        streams: { key: 100, firstSlot: 0 }
      })()
      if (E.isLeft(result)) throw new Error(result.left._tag)
      return result.right.episodes
    })
    expect(actions(otherKey)).not.toEqual(actions(whole))
    // `rng` draws the key: the same rng state gives the same streams
    expect(_.streamsOf({ rng: Rng.make(3) })).toEqual(_.streamsOf({ rng: Rng.make(3) }))
    expect(_.streamsOf({ streams: { key: 5, firstSlot: 4 } })).toEqual({ key: 5, firstSlot: 4 })
  })

  it('truncates (and flags) an episode whose next observation would not fit the context', async () => {
    const { episodes, metrics } = await run(
      options,
      [0, 1].map(() => Toy.corridor('left', 10)),
      [1, 2],
      1,
      40
    )
    for (const { trajectory } of episodes) {
      expect(trajectory.truncated).toBe(true)
      expect(trajectory.won).toBe(false)
      expect(Trajectory.length(trajectory)).toBeLessThanOrEqual(40)
      expect(trajectory.turns.length).toBeLessThan(10)
    }
    expect(metrics.truncatedRate).toBe(1)
  })

  it('stops at maxTurns with truncated: true', async () => {
    const { episodes } = await run({ ...options, maxTurns: 2 }, [Toy.corridor()], [1], 1)
    expect(episodes[0]!.trajectory.turns.length).toBe(2)
    expect(episodes[0]!.trajectory.truncated).toBe(true)
  })

  it('replaces unparseable or inadmissible actions with the default action and counts them invalid', async () => {
    const { episodes, metrics } = await run(
      { ...options, defaultAction: 'forward', checkAdmissible: true },
      [0, 1, 2, 3].map(() => Toy.corridor()),
      [1, 2, 3, 4],
      1
    )
    const turns = episodes.flatMap((e) => e.trajectory.turns)
    for (const turn of turns) if (!turn.parsed) expect(turn.action).toBe('forward')
    for (const turn of turns) if (!['left', 'right', 'forward'].includes(turn.action)) throw new Error(`sent ${turn.action}`)
    expect(metrics.invalidRate).toBeCloseTo(turns.filter((u) => !u.valid).length / turns.length)
    expect(metrics.formatErrorRate).toBeCloseTo(turns.filter((u) => !u.parsed).length / turns.length)
  })

  it('fixed-turn batching plays exactly K turns per slot across episode boundaries, truncating the last episode', async () => {
    const { episodes } = await run(
      { ...options, turnsPerSlot: 5 },
      [0, 1].map(() => Toy.corridor()),
      [3],
      2
    )
    for (const slot of [0, 1]) {
      const mine = episodes.filter((e) => e.slot === slot)
      expect(mine.reduce((n, e) => n + e.trajectory.turns.length, 0)).toBe(5)
      expect(mine.map((e) => e.trajectory.turns.length)).toEqual([3, 2])
      expect(mine.map((e) => e.trajectory.truncated)).toEqual([false, true])
      expect(mine[1]!.trajectory.seed).toBe(_.seedOf([3], 0, 1))
    }
    expect(episodes[1]!.trajectory.groupId).toBe(episodes[3]!.trajectory.groupId)
  })

  it('window memory makes one sample per turn, each with its own prompt of the goal and the last K turns', async () => {
    const { episodes } = await run({ ...options, memory: Memory.window(1) }, [Toy.corridor()], [1], 1)
    const episode = episodes[0]!
    expect(episode.samples.length).toBe(episode.trajectory.turns.length)
    episode.samples.forEach((sample, k) => {
      expect(sample.segments.map((s) => s.kind)).toEqual(['prompt', 'action'])
      expect(sample.turns).toEqual([episode.trajectory.turns[k]])
      expect(E.isRight(Trajectory.validate(sample))).toBe(true)
    })
    const prompt = (k: number) => tokenizer.decode(episode.samples[k]!.segments[0]!.tokens)
    expect(prompt(0)).toContain('start')
    expect(prompt(2)).toContain('middle')
    expect(episode.samples[2]!.truncated).toBe(false)
    expect(episode.samples[0]!.truncated).toBe(true)
  })

  it('reports turns, tokens and rates as data', async () => {
    const { episodes, metrics } = await run(
      options,
      [0, 1, 2].map(() => Toy.corridor()),
      [1, 2, 3],
      1
    )
    expect(metrics.episodes).toBe(3)
    expect(metrics.turns).toBe(episodes.reduce((n, e) => n + e.trajectory.turns.length, 0))
    expect(metrics.generatedTokens).toBe(episodes.reduce((n, e) => n + Trajectory.actionMask(e.trajectory).reduce((a, b) => a + b, 0), 0))
    expect(metrics.tokensPerSecond).toBeGreaterThan(0)
  })
})

describe('Rollout failures', () => {
  it('ends with the environment error when a step fails', async () => {
    const broken = { ...Toy.corridor(), step: () => async () => E.left({ _tag: 'StepFailed' as const, env: 'corridor', action: 'x', reason: 'boom' }) }
    const result = await withGenerator(1, 128, (g) => _.run(options)(g)({ envs: [broken], seeds: [1], groupSize: 1, rng: Rng.make(0) })())
    expect(result).toEqual(E.left({ _tag: 'StepFailed', env: 'corridor', action: 'x', reason: 'boom' }))
  })

  it('ends with the first failing reset, and a failure on a later turn of one slot ends the whole rollout', async () => {
    const noReset = { ...Toy.corridor(), reset: () => async () => E.left({ _tag: 'ResetFailed' as const, env: 'corridor', seed: 2, reason: 'no such game' }) }
    const early = await withGenerator(2, 128, (g) => _.run(options)(g)({ envs: [Toy.corridor(), noReset], seeds: [1, 2], groupSize: 1, rng: Rng.make(0) })())
    expect(early).toEqual(E.left({ _tag: 'ResetFailed', env: 'corridor', seed: 2, reason: 'no such game' }))
    const good = Toy.corridor()
    let turns = 0
    const late = {
      ...good,
      step: (a: string) => (++turns === 2 ? async () => E.left({ _tag: 'StepFailed' as const, env: 'corridor', action: a, reason: 'late' }) : good.step(a))
    }
    const result = await withGenerator(2, 128, (g) => _.run(options)(g)({ envs: [Toy.corridor(), late], seeds: [1, 2], groupSize: 1, rng: Rng.make(0) })())
    expect(E.isLeft(result) && result.left).toMatchObject({ _tag: 'StepFailed', reason: 'late' })
  })

  it('firstPrompt is the prompt a rollout appends, and says whether a reply fits after it', async () => {
    const seen = await withGenerator(1, 128, (g) => _.run(options)(g)({ envs: [Toy.corridor()], seeds: [1], groupSize: 1, rng: Rng.make(0) })())
    if (E.isLeft(seen)) throw new Error('rollout failed')
    const start = await Toy.corridor().reset(1)()
    if (E.isLeft(start)) throw new Error('reset failed')
    const { tokens, fits } = _.firstPrompt(options, template, 128)(start.right)
    expect(Array.from(tokens)).toEqual(Array.from(seen.right.episodes[0]!.trajectory.segments[0]!.tokens))
    expect(fits).toBe(true)
    expect(_.firstPrompt(options, template, tokens.length + options.maxNewTokens - 1)(start.right).fits).toBe(false)
    expect(_.firstPrompt(options, template, tokens.length + options.maxNewTokens)(start.right).fits).toBe(true)
  })
  describe('exploreRate', () => {
    const sampledLogprobs = (trajectory: Trajectory.Trajectory): Float32Array => {
      const out = new Float32Array(Trajectory.length(trajectory))
      let at = 0
      for (const s of trajectory.segments) {
        if (s.logprobs !== undefined) out.set(s.logprobs, at)
        at += s.tokens.length
      }
      return out
    }

    it('at rate 1 plays an admissible action every turn: its encoding and the stop token, no sampler log-probs, marked explored', async () => {
      const { episodes, metrics } = await run(
        { ...options, exploreRate: 1 },
        [0, 1, 2, 3].map(() => Toy.corridor()),
        [1, 2, 3, 4],
        1
      )
      expect(metrics.exploredRate).toBe(1)
      expect(metrics.generatedTokens).toBe(0)
      for (const { trajectory } of episodes) {
        expect(E.isRight(Trajectory.validate(trajectory))).toBe(true)
        const actions = trajectory.segments.filter((s) => s.kind === 'action')
        expect(actions).toHaveLength(trajectory.turns.length)
        trajectory.turns.forEach((turn, k) => {
          expect(turn.explored).toBe(true)
          expect(['left', 'right', 'forward']).toContain(turn.action)
          expect(Array.from(actions[k]!.tokens)).toEqual([...tokenizer.encode(turn.action), template.stopTokens[0]])
          expect(actions[k]!.logprobs).toBeUndefined()
        })
        expect(Array.from(Trajectory.exploredMask(trajectory))).toEqual(Array.from(Trajectory.actionMask(trajectory)))
      }
    })

    it('writes a move in the tagged format as an expert reply is written', async () => {
      const { episodes } = await run({ ...options, actionFormat: 'tagged', exploreRate: 1 }, [Toy.corridor()], [1], 1)
      const { trajectory } = episodes[0]!
      const actions = trajectory.segments.filter((s) => s.kind === 'action')
      trajectory.turns.forEach((turn, k) => {
        expect(Array.from(actions[k]!.tokens)).toEqual(Array.from(Layout.replyTokens(template, tokenizer)(`<action>${turn.action}</action>`)))
        expect(turn.parsed).toBe(true)
      })
    })

    it('mixes moves and samples, and the context stays exact: the sampled tokens re-score to their sampler log-probs', async () => {
      await expectNoLeak(async () => {
        const { episodes, metrics } = await run(
          { ...options, exploreRate: 0.5 },
          [0, 1, 2, 3, 4, 5].map(() => Toy.corridor('left', 6)),
          [1, 2, 3, 4, 5, 6],
          1
        )
        expect(metrics.exploredRate).toBeGreaterThan(0.2)
        expect(metrics.exploredRate).toBeLessThan(0.8)
        let mixed = 0
        for (const { trajectory } of episodes) {
          const flags = trajectory.turns.map((t) => t.explored === true)
          if (flags.includes(true) && flags.includes(false)) mixed++
          const ids = tf.tensor2d(Trajectory.tokens(trajectory), [1, Trajectory.length(trajectory)], 'int32')
          const { logprobs, entropy } = Scoring.tokenLogprobs(policy)(ids, options.temperature)
          const scored = logprobs.dataSync()
          const sampled = sampledLogprobs(trajectory)
          const explored = Trajectory.exploredMask(trajectory)
          Trajectory.actionMask(trajectory).forEach((m, i) => m === 1 && explored[i] === 0 && expect(scored[i]).toBeCloseTo(sampled[i]!, 4))
          tf.dispose([ids, logprobs, entropy])
        }
        expect(mixed).toBeGreaterThan(0)
      })
    })

    it('at rate 0 plays the very episodes of a rollout without it, and never explores where no admissible actions are listed', async () => {
      const a = await run(
        options,
        [0, 1].map(() => Toy.corridor()),
        [1, 2],
        1,
        128,
        5
      )
      const b = await run(
        { ...options, exploreRate: 0 },
        [0, 1].map(() => Toy.corridor()),
        [1, 2],
        1,
        128,
        5
      )
      expect(b.episodes.map((e) => Array.from(Trajectory.tokens(e.trajectory)))).toEqual(a.episodes.map((e) => Array.from(Trajectory.tokens(e.trajectory))))
      const unlisted = (): Env.Env => {
        const env = Toy.corridor()
        const strip = <A extends { readonly info: Env.StepInfo }>(x: A): A => ({
          ...x,
          info: { valid: x.info.valid, score: x.info.score, maxScore: x.info.maxScore }
        })
        return {
          ...env,
          reset: (seed) => async () => E.map((o: Env.Observation) => strip(o))(await env.reset(seed)()),
          step: (action) => async () => E.map((r: Env.StepResult) => strip(r))(await env.step(action)())
        }
      }
      const c = await run({ ...options, exploreRate: 1 }, [unlisted(), unlisted()], [1, 2], 1)
      expect(c.metrics.exploredRate).toBe(0)
      expect(c.metrics.generatedTokens).toBeGreaterThan(0)
    })
  })
})
