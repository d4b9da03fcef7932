import { Rng, type Trajectory } from '@mtrl/core'
import { ChatTemplate, ModelConfig, Policy, Sampler } from '@mtrl/policy'
import { Batch, Rollout } from '@mtrl/rollout'
import { Optimizer } from '@mtrl/optim'
import { TestBackend, Toy } from '@mtrl/testing'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { make, resolve, type Config } from '../src/Config.js'
import * as _ from '../src/ImportanceSampling.js'
import * as Kl from '../src/Kl.js'
import * as forward from '../src/internal/forward.js'
import { update } from '../src/internal/update.js'
import * as Trainer from '../src/Trainer.js'
import { step, tokenizer, toyConfig } from './fixtures/toyRun.js'

beforeAll(() => TestBackend.use('cpu'))

const ln = Math.log
const settings = (mode: _.Mode, level: _.Level = 'token', cap = 2, floor = 0): _.Settings => ({ mode, level, cap, floor })

// two rows of three positions: row 0 samples tokens 1 and 2 (ratios 3 and 0.5), row 1 samples token 0 (ratio 1.5); position 0 of row 0 is a prompt
const input: _.Input = {
  rows: 2,
  time: 3,
  sampled: Float32Array.of(0, 1, 1, 1, 0, 0),
  trainerLogprobs: Float32Array.of(-1, ln(0.6), ln(0.1), ln(0.3), -2, -3),
  samplerLogprobs: Float32Array.of(0, ln(0.2), ln(0.2), ln(0.2), 0, 0)
}
const near = (got: Float32Array, want: ReadonlyArray<number>): void => want.forEach((w, i) => expect(got[i], `position ${i}`).toBeCloseTo(w, 5))

describe('ImportanceSampling.correct: hand-derived weights', () => {
  it('tis truncates each token ratio at the cap; unsampled tokens weigh 1', () => {
    near(_.correct(settings('tis'))(input).weights, [1, 2, 0.5, 1.5, 1, 1])
  })
  it('mis keeps ratios within [floor, cap] and masks the rest', () => {
    near(_.correct(settings('mis'))(input).weights, [1, 0, 0.5, 1.5, 1, 1])
    near(_.correct(settings('mis', 'token', 2, 0.6))(input).weights, [1, 0, 0, 1.5, 1, 1])
  })
  it('sequence level weighs every sampled token of a row by the product of its ratios; geometric by their geometric mean', () => {
    // row 0: 3 x 0.5 = 1.5; geometric sqrt(1.5)
    near(_.correct(settings('tis', 'sequence'))(input).weights, [1, 1.5, 1.5, 1.5, 1, 1])
    near(_.correct(settings('mis', 'sequence', 1.2))(input).weights, [1, 0, 0, 0, 1, 1])
    near(_.correct(settings('tis', 'geometric'))(input).weights, [1, Math.sqrt(1.5), Math.sqrt(1.5), 1.5, 1, 1])
  })
  it('off weighs every token 1 but still measures the mismatch: mean |log r|, k3 KL, max ratio', () => {
    const { weights, mismatch } = _.correct(_.off)(input)
    near(weights, [1, 1, 1, 1, 1, 1])
    const logs = [ln(3), ln(0.5), ln(1.5)]
    expect(mismatch.meanAbsLogRatio).toBeCloseTo(logs.reduce((a, l) => a + Math.abs(l), 0) / 3, 6)
    expect(mismatch.kl).toBeCloseTo(logs.reduce((a, l) => a + Math.exp(l) - 1 - l, 0) / 3, 6)
    expect(mismatch.maxRatio).toBeCloseTo(3, 5)
    expect(mismatch.correctedFraction).toBe(0)
    expect(_.correct(settings('tis'))(input).mismatch.correctedFraction).toBeCloseTo(1 / 3, 6)
    expect(_.correct(settings('mis', 'token', 2, 0.6))(input).mismatch.correctedFraction).toBeCloseTo(2 / 3, 6)
  })
})

/** Episode i: a prompt and one or two turns of two action tokens. */
const episode = (i: number): Trajectory.Trajectory => {
  const turns = 1 + (i % 2)
  const segments: Trajectory.Segment[] = [{ kind: 'prompt', turn: 0, tokens: Int32Array.of(1, 2 + (i % 5), 3) }]
  for (let k = 0; k < turns; k++) {
    segments.push({ kind: 'action', turn: k, tokens: Int32Array.of(4 + ((i + k) % 7), 5 + (k % 3)) })
    if (k < turns - 1) segments.push({ kind: 'observation', turn: k, tokens: Int32Array.of(12, 13) })
  }
  const turn = { action: 'a', reward: 0, valid: true, parsed: true, score: 0, maxScore: 1 }
  return {
    env: 'fixed',
    seed: i,
    groupId: `fixed:${i}`,
    segments,
    turns: Array.from({ length: turns }, () => turn),
    turnRewards: [],
    won: false,
    truncated: false
  }
}

describe('importance weights in the update', () => {
  it('weighing the policy gradient by w moves the policy exactly as advantages multiplied by w (PPO and the clipped policy gradient)', () => {
    const modelConfig = ModelConfig.make({ vocab: 16, dModel: 16, layers: 1, heads: 2, maxLen: 32 })
    const batch = Batch.make({ pad: 0 })(Array.from({ length: 5 }, (_, i) => episode(i)))
    const n = batch.batch * batch.time
    const rng = Rng.make(4)
    const advantages = Float32Array.from({ length: n }, () => rng.next() * 2 - 1)
    const weights = Float32Array.from({ length: n }, (_, i) => [0, 0.5, 1, 2][i % 4]!)
    const config: Config = make({ update: { minibatches: 1, epochs: 1 }, loss: { entropyCoef: 0 } })
    for (const lossKind of ['ppo', 'policyGradient'] as const) {
      const after = (weighted: boolean): Float32Array[] => {
        const policy = Policy.make(modelConfig, 11)
        const optimizer = Optimizer.make(Policy.trainableVariables(policy))
        const oldLogprobs = forward.logprobs(policy, batch, 1)
        update(
          {
            config: resolve({ ...config, rollout: { ...config.rollout, temperature: 1 }, loss: { ...config.loss, policyLoss: lossKind } }),
            policy,
            critic: undefined,
            policyOptimizer: optimizer,
            criticOptimizer: undefined,
            policyLr: 0.01,
            updatePolicy: true,
            klCoef: 0,
            shuffle: Rng.make(3)
          },
          weighted
            ? { batch, oldLogprobs, advantages, returns: new Float32Array(n), importanceWeights: weights }
            : { batch, oldLogprobs, advantages: advantages.map((a, i) => a * weights[i]!), returns: new Float32Array(n) }
        )
        const out = [...Policy.toHost(policy.variables).values()].map((w) => w.data)
        optimizer.dispose()
        policy.dispose()
        return out
      }
      const a = after(true)
      const b = after(false)
      const initial = Policy.make(modelConfig, 11)
      const before = [...Policy.toHost(initial.variables).values()].map((w) => w.data)
      initial.dispose()
      a.forEach((w, i) => w.forEach((x, j) => expect(x, `${lossKind} weight ${i}[${j}]`).toBeCloseTo(b[i]![j]!, 5)))
      // and it did move
      expect(a.some((w, i) => w.some((x, j) => Math.abs(x - before[i]![j]!) > 1e-4))).toBe(true)
    }
  })
})

describe('importance sampling through Trainer.iterate', () => {
  /** A toy GRPO run on the bandit whose sampler log-probs are all log 3 below the policy's: every token ratio is 3. */
  const run = (importanceSampling: _.Settings) => {
    const config = toyConfig('grpo', 'bandit', { importanceSampling, kl: Kl.none })
    const model = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
    const policy = Policy.make(model, 0)
    const template = ChatTemplate.make(tokenizer)
    const session = Sampler.make(policy, { slots: 16, maxLen: 64 })
    const inner = Rollout.run(config.rollout)({ session, template, tokenizer, contextLength: 64 })
    const shift = (t: Trajectory.Trajectory): Trajectory.Trajectory => ({
      ...t,
      segments: t.segments.map((s) => (s.logprobs === undefined ? s : { ...s, logprobs: s.logprobs.map((l) => l - Math.log(3)) }))
    })
    const play = (input: Rollout.Input) =>
      TE.map((r: Rollout.Result) => ({ ...r, episodes: r.episodes.map((e) => ({ ...e, trajectory: shift(e.trajectory), samples: e.samples.map(shift) })) }))(
        inner(input)
      )
    // a reward that differs within groups (the action's length), so that advantages are not all 0
    const reward = (t: Trajectory.Trajectory): ReadonlyArray<number> => [t.turns[0]?.action.length ?? 0]
    const trainer = Trainer.make({ config, policy, envs: Array.from({ length: 16 }, () => Toy.bandit()), template, tokenizer, contextLength: 64, play, reward })
    return { trainer, policy, dispose: () => (trainer.dispose(), session.dispose(), policy.dispose()) }
  }
  const weightsOf = (policy: Policy.Policy) => [...Policy.toHost(policy.variables).values()].map((w) => Array.from(w.data))

  it('logs the mismatch every iteration: ratio 3 everywhere gives max ratio 3, k3 KL 3 - 1 - ln 3, and tis at cap 2 truncates every token', async () => {
    const r = run(settings('tis'))
    const m = await step(r.trainer)
    expect(m['mismatch/max_ratio']).toBeCloseTo(3, 3)
    expect(m['mismatch/kl']).toBeCloseTo(3 - 1 - Math.log(3), 3)
    expect(m['mismatch/corrected_fraction']).toBe(1)
    expect(m['logprob/sampler_trainer_gap']).toBeCloseTo(Math.log(3), 3)
    r.dispose()
  })
  it('mis at cap 2 masks every token: the policy does not move; off: it does', async () => {
    const masked = run(settings('mis'))
    const before = weightsOf(masked.policy)
    const m = await step(masked.trainer)
    expect(m['mismatch/corrected_fraction']).toBe(1)
    expect(m['advantage/std']).toBeGreaterThan(0)
    expect(weightsOf(masked.policy)).toEqual(before)
    masked.dispose()
    const plain = run(_.off)
    const first = weightsOf(plain.policy)
    const p = await step(plain.trainer)
    expect(Number.isNaN(p['mismatch/kl'])).toBe(true)
    expect(p['advantage/std']).toBeGreaterThan(0)
    expect(weightsOf(plain.policy)).not.toEqual(first)
    plain.dispose()
  })
})
