/**
 * The algorithms as their papers define them, through the whole trainer path (`Trainer.iterate`
 * on fixed episodes whose sampler log-probs are the policy's own, so the first step's ratio is
 * exactly 1): GRPO's per-sequence aggregation, the token-mean variant, Dr. GRPO's unnormalised
 * advantages and constant normaliser, and REINFORCE++'s KL penalty in the reward. Expected values
 * are derived by hand from the rewards and the lengths.
 */
import type { Trajectory } from '@mtrl/core'
import { ChatTemplate, ModelConfig, Policy } from '@mtrl/policy'
import { Batch, RolloutMetrics, type Rollout } from '@mtrl/rollout'
import { TestBackend, Toy } from '@mtrl/testing'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Algorithm from '../src/Algorithm.js'
import { make, override, resolve, type Config, type Overrides } from '../src/Config.js'
import * as forward from '../src/internal/forward.js'
import * as Kl from '../src/Kl.js'
import * as Trainer from '../src/Trainer.js'
import { step } from './fixtures/toyRun.js'

beforeAll(() => TestBackend.use('cpu'))

const tokenizer = Toy.tokenizer()
const template = ChatTemplate.make(tokenizer)
const model = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })

/** One episode of one turn of game 7: a prompt, then `actionLength` action tokens, rewarded `reward`. */
const episode = (variant: number, actionLength: number, reward: number): Trajectory.Trajectory => ({
  env: 'fixed',
  seed: 7,
  groupId: 'fixed:7',
  segments: [
    { kind: 'prompt', turn: 0, tokens: Int32Array.of(1, 4, 9) },
    { kind: 'action', turn: 0, tokens: Int32Array.from({ length: actionLength }, (_, k) => 8 + ((variant + k) % 4)) }
  ],
  turns: [{ action: 'a', reward, valid: true, parsed: true, score: reward, maxScore: 1 }],
  turnRewards: [reward],
  won: reward > 0,
  truncated: false
})

/** The episodes with the policy's own log-probs as sampler log-probs (ratio 1 at the first step). */
const withOwnLogprobs = (policy: Policy.Policy, temperature: number, episodes: ReadonlyArray<Trajectory.Trajectory>): Trajectory.Trajectory[] => {
  const batch = Batch.make({ pad: 0 })(episodes)
  const logprobs = forward.logprobs(policy, batch, temperature)
  return episodes.map((e, row) => {
    let at = row * batch.time
    return {
      ...e,
      segments: e.segments.map((s) => {
        const start = at
        at += s.tokens.length
        return s.kind === 'action' ? { ...s, logprobs: logprobs.slice(start, at) } : s
      })
    }
  })
}

/** A trainer whose iterations are these episodes, played as one group. */
const trainerOn = (config: Config, episodes: ReadonlyArray<Trajectory.Trajectory>, reference?: Policy.Policy) => {
  const policy = Policy.make(model, 3)
  const own = withOwnLogprobs(policy, config.rollout.temperature, episodes)
  const play = (_input: Rollout.Input) =>
    TE.right({
      episodes: own.map((trajectory, slot): Rollout.Episode => ({ trajectory, samples: [trajectory], slot, index: 0, ending: 'done' })),
      metrics: RolloutMetrics.summarize(own, { generatedTokens: 0, contextTokens: 0, cutOff: 0, hackingPairs: 0, pairs: 0, seconds: 1 })
    })
  const trainer = Trainer.make({
    config,
    policy,
    ...(reference ? { reference } : {}),
    envs: episodes.map(() => Toy.bandit()),
    template,
    tokenizer,
    contextLength: 64,
    play
  })
  return { trainer, policy, dispose: () => (trainer.dispose(), policy.dispose()) }
}

const configOf = (algorithm: Config['algorithm'], overrides: Overrides = {}): Config =>
  override(overrides)(
    make({
      algorithm,
      budget: { seedsPerIteration: 1, groupSize: 4 },
      update: { minibatches: 1, epochs: 1 },
      priorKlEvery: 0,
      rollout: { temperature: 1, maxTurns: 1 }
    })
  )

describe('the algorithms as their papers define them (hand-derived, through Trainer.iterate)', () => {
  // one group of four: rewards 1, 0, 0, 1 on replies of 1, 2, 3, 2 tokens
  const group = [episode(0, 1, 1), episode(1, 2, 0), episode(2, 3, 0), episode(3, 2, 1)]
  const lengths = [1, 2, 3, 2]
  const signs = [1, -1, -1, 1]

  it('resolves each name to its estimator, aggregation and KL term', () => {
    expect(resolve(configOf('grpo'))).toMatchObject({
      advantage: { estimator: 'grpo' },
      loss: { aggregation: 'seq-mean-token-mean' },
      kl: { estimator: 'k3', placement: 'loss', controller: { _tag: 'fixed', coef: 0.04 } }
    })
    expect(resolve(configOf('grpo-token-mean'))).toMatchObject({
      advantage: { estimator: 'grpo' },
      loss: { aggregation: 'token-mean' },
      kl: { placement: 'loss' }
    })
    expect(resolve(configOf('dr-grpo'))).toMatchObject({
      advantage: { estimator: 'grpo', options: { normalizeByStd: false } },
      loss: { aggregation: 'seq-mean-token-sum-norm' },
      kl: Kl.none
    })
    expect(resolve(configOf('reinforce++'))).toMatchObject({
      advantage: { estimator: 'reinforcePlusPlus' },
      loss: { aggregation: 'token-mean' },
      kl: { estimator: 'k1', placement: 'reward', controller: { coef: 0.01 } }
    })
    // a configuration's own choices win
    expect(resolve(configOf('grpo', { loss: { aggregation: 'token-mean' }, kl: Kl.none }))).toMatchObject({ loss: { aggregation: 'token-mean' }, kl: Kl.none })
    expect(resolve(configOf('dr-grpo', { advantage: { options: { normalizeByStd: true } } })).advantage.options).toEqual({ normalizeByStd: true })
    expect(Algorithm.names.every((n) => resolve(configOf(n)).advantage.estimator === Algorithm.registry[n].estimator)).toBe(true)
  })

  it('GRPO: the per-sequence mean of -A over a group whose advantages sum to 0 is exactly 0, whatever the lengths; its KL term is measured', async () => {
    const reference = Policy.make(model, 3)
    const run = trainerOn(configOf('grpo'), group, reference)
    const m = await step(run.trainer)
    expect(m['loss/policy']).toBeCloseTo(0, 6)
    // the reference equals the policy: k3 = 0 on every token
    expect(m['kl/mean']).toBeCloseTo(0, 6)
    expect(m['kl/coef']).toBe(0.04)
    run.dispose()
    reference.dispose()
  })

  it('grpo-token-mean: -sum(n_i A_i) / sum(n_i), A = (R - mean) / sample std', async () => {
    const std = Math.sqrt((4 * 0.25) / 3)
    const a = 0.5 / (std + 1e-6)
    const expected = -lengths.reduce((s, n, i) => s + n * signs[i]! * a, 0) / lengths.reduce((s, n) => s + n, 0)
    const reference = Policy.make(model, 3)
    const run = trainerOn(configOf('grpo-token-mean'), group, reference)
    expect((await step(run.trainer))['loss/policy']).toBeCloseTo(expected, 5)
    expect(expected).toBeCloseTo(0.2165, 3)
    run.dispose()
    reference.dispose()
  })

  it("Dr. GRPO: A = R - mean (no std), summed over tokens and divided by the batch's width", async () => {
    const run = trainerOn(configOf('dr-grpo'), group)
    const width = Batch.make({ pad: 0 })(group).time
    const expected = -lengths.reduce((s, n, i) => s + n * signs[i]! * 0.5, 0) / width
    expect((await step(run.trainer))['loss/policy']).toBeCloseTo(expected, 5)
    expect(width).toBe(6)
    run.dispose()
  })

  it('REINFORCE++: the KL penalty is in the reward (k1 against the reference, beta 0.01): with no reward at all, only it moves the policy', async () => {
    // four games of one episode each
    const silent = group.map((e, i) => ({ ...e, seed: 20 + i, groupId: `fixed:${20 + i}`, turnRewards: [0], won: false }))
    const config = configOf('reinforce++', { budget: { groupSize: 1, seedsPerIteration: 4 } })
    const same = Policy.make(model, 3)
    const other = Policy.make(model, 11)
    const withSame = trainerOn(config, silent, same)
    const m0 = await step(withSame.trainer)
    // the reference is the policy: k1 = 0, no reward, no advantage, no gradient
    expect(m0['kl/mean']).toBeCloseTo(0, 6)
    expect(m0['grad/policy_norm']).toBeCloseTo(0, 6)
    withSame.dispose()
    const withOther = trainerOn(config, silent, other)
    const m1 = await step(withOther.trainer)
    // k1 = log pi_old - log pi_ref, averaged over the action tokens, by hand
    const batch = Batch.make({ pad: 0 })(silent)
    const policy = Policy.make(model, 3)
    const old = forward.logprobs(policy, batch, 1)
    const ref = forward.logprobs(other, batch, 1)
    policy.dispose()
    let sum = 0
    let n = 0
    batch.actionMask.forEach((mask, i) => {
      if (mask !== 1) return
      sum += old[i]! - ref[i]!
      n++
    })
    expect(m1['kl/mean']).toBeCloseTo(sum / n, 5)
    expect(m1['kl/coef']).toBe(0.01)
    expect(m1['grad/policy_norm']).toBeGreaterThan(1e-4)
    // advantages normalised over the whole batch
    expect(m1['advantage/mean']).toBeCloseTo(0, 5)
    withOther.dispose()
    same.dispose()
    other.dispose()
  })
})
