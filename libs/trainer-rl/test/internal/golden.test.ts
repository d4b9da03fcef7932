/**
 * Regression golden: the update's policy-loss metrics of PPO, GRPO and REINFORCE++ on a fixed
 * batch, recorded before the losses moved into the `PolicyLoss` registry (issue 54), so that the
 * move provably changes no existing algorithm. These values are the old code's output, kept as a
 * regression check; the losses' correctness is tested against their formulas elsewhere.
 */
import { Rng, type Trajectory } from '@mtrl/core'
import { ModelConfig, Policy } from '@mtrl/policy'
import { Batch } from '@mtrl/rollout'
import { Optimizer } from '@mtrl/optim'
import { TestBackend } from '@mtrl/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Algorithm from '../../src/Algorithm.js'
import { make, resolve, type Overrides } from '../../src/Config.js'
import * as forward from '../../src/internal/forward.js'
import { update, type UpdateMetrics } from '../../src/internal/update.js'

beforeAll(() => TestBackend.use('cpu'))

const turn: Trajectory.Turn = { action: 'a', reward: 0, valid: true, parsed: true, score: 0, maxScore: 1 }
const modelConfig = ModelConfig.make({ vocab: 16, dModel: 16, layers: 1, heads: 2, maxLen: 48 })
const temperature = 0.7

const episode = (i: number): Trajectory.Trajectory => {
  const turns = 1 + (i % 3)
  const segments: Trajectory.Segment[] = [{ kind: 'prompt', turn: 0, tokens: Int32Array.of(1, 2 + (i % 5), 3) }]
  for (let k = 0; k < turns; k++) {
    segments.push({ kind: 'action', turn: k, tokens: Int32Array.of(4 + ((i + k) % 7), 5 + (k % 3)) })
    if (k < turns - 1) segments.push({ kind: 'observation', turn: k, tokens: Int32Array.of(12, 13 + ((i * k) % 3)) })
  }
  const actions = segments.filter((s) => s.kind === 'action').map(() => turn)
  return { env: 'fixed', seed: i, groupId: `fixed:${i}`, segments, turns: actions, turnRewards: [], won: i % 2 === 0, truncated: false }
}

const noise = (n: number, seed: number, scale = 1): Float32Array => {
  const rng = Rng.make(seed)
  return Float32Array.from({ length: n }, () => (rng.next() * 2 - 1) * scale)
}

/** Two epochs of two minibatches at lr 0.01, behaviour log-probs 0.3 off the policy's (clipping in play). */
const run = (name: Algorithm.Name, overrides: Overrides, importance: boolean): UpdateMetrics => {
  const policy = Policy.make(modelConfig, 11)
  const reference = Policy.make(modelConfig, 12)
  const batch = Batch.make({ pad: 0 })(Array.from({ length: 6 }, (_, i) => episode(i)))
  const n = batch.batch * batch.time
  const shift = noise(n, 7, 0.3)
  const oldLogprobs = forward.logprobs(policy, batch, temperature).map((x, i) => x + shift[i]!)
  const refLogprobs = forward.logprobs(reference, batch, temperature)
  const optimizer = Optimizer.make(Policy.trainableVariables(policy))
  const config = resolve(make({ algorithm: name, rollout: { temperature }, update: { epochs: 2, minibatches: 2 }, loss: { entropyCoef: 0.01 }, ...overrides }))
  try {
    return update(
      {
        config,
        policy,
        critic: undefined,
        policyOptimizer: optimizer,
        criticOptimizer: undefined,
        policyLr: 0.01,
        updatePolicy: true,
        klCoef: 0.04,
        shuffle: Rng.make(3)
      },
      {
        batch,
        oldLogprobs,
        advantages: noise(n, 1, 2),
        returns: noise(n, 2),
        ...(config.kl.placement === 'loss' ? { refLogprobs } : {}),
        ...(importance ? { importanceWeights: noise(n, 5, 0.5).map((x) => 1 + x) } : {})
      }
    )
  } finally {
    optimizer.dispose()
    policy.dispose()
    reference.dispose()
  }
}

const keys = ['policyLoss', 'clipFraction', 'approxKl', 'klLoss', 'entropy', 'policyGradNorm'] as const

describe('the policy losses of the existing algorithms (regression golden)', () => {
  it.each([
    [
      'ppo',
      {},
      false,
      {
        policyLoss: 0.08178021013736725,
        clipFraction: 0.3958333395421505,
        approxKl: 0.13257283647544682,
        klLoss: 0,
        entropy: 2.75633704662323,
        policyGradNorm: 1.6450092494487762
      }
    ],
    [
      'ppo',
      { loss: { aggregation: 'seq-mean-token-sum-norm' } },
      true,
      {
        policyLoss: 0.266056913882494,
        clipFraction: 0.4166666828095913,
        approxKl: 0.1304893190972507,
        klLoss: 0,
        entropy: 2.7571117281913757,
        policyGradNorm: 1.5912029445171356
      }
    ],
    [
      'ppo',
      { loss: { options: { dualClip: 1.1 } } },
      false,
      {
        policyLoss: 0.08659890480339527,
        clipFraction: 0.4375000111758709,
        approxKl: 0.12524658627808094,
        klLoss: 0,
        entropy: 2.757679283618927,
        policyGradNorm: 1.4864353835582733
      }
    ],
    [
      'grpo',
      {},
      false,
      {
        policyLoss: 0.12810679711401463,
        clipFraction: 0.3958333395421505,
        approxKl: 0.11006859270855784,
        klLoss: 0.0696733754593879,
        entropy: 2.757499039173126,
        policyGradNorm: 1.952683836221695
      }
    ],
    [
      'reinforce++',
      {},
      true,
      {
        policyLoss: 0.2880680817179382,
        clipFraction: 0.3958333395421505,
        approxKl: 0.12991325836628675,
        klLoss: 0,
        entropy: 2.757160723209381,
        policyGradNorm: 1.721934549510479
      }
    ]
  ] as const)('%s %j (importance weights: %s)', (name, overrides, importance, expected) => {
    const m = run(name, overrides as Overrides, importance)
    for (const k of keys) expect(m[k], k).toBeCloseTo(expected[k], 5)
  })
})
