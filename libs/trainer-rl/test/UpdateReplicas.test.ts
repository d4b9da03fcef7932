import { Rng, type Trajectory } from '@mtrl/core'
import { Critic, ModelConfig, Policy } from '@mtrl/policy'
import { Batch } from '@mtrl/rollout'
import { Optimizer } from '@mtrl/optim'
import { expectNoLeak, TestBackend } from '@mtrl/testing'
import { beforeAll, describe, expect, it } from 'vitest'
import { make, override, resolve, type Config } from '../src/Config.js'
import * as Kl from '../src/Kl.js'
import type * as PolicyLoss from '../src/PolicyLoss.js'
import * as forward from '../src/internal/forward.js'
import { update, type UpdateMetrics } from '../src/internal/update.js'
import * as _ from '../src/UpdateReplicas.js'

beforeAll(() => TestBackend.use('cpu'))

const turn: Trajectory.Turn = { action: 'a', reward: 0, valid: true, parsed: true, score: 0, maxScore: 1 }
const modelConfig = ModelConfig.make({ vocab: 16, dModel: 16, layers: 1, heads: 2, maxLen: 48 })
const temperature = 0.7

/** Episode i: a prompt, then 1 + (i % 3) turns of an action and an observation (different lengths, different tokens). */
const episode = (i: number): Trajectory.Trajectory => {
  const turns = 1 + (i % 3)
  const segments: Trajectory.Segment[] = [{ kind: 'prompt', turn: 0, tokens: Int32Array.of(1, 2 + (i % 5), 3) }]
  for (let k = 0; k < turns; k++) {
    segments.push({ kind: 'action', turn: k, tokens: Int32Array.of(4 + ((i + k) % 7), 5 + (k % 3)) })
    if (k < turns - 1) segments.push({ kind: 'observation', turn: k, tokens: Int32Array.of(12, 13 + ((i * k) % 3)) })
  }
  return {
    env: 'fixed',
    seed: i,
    groupId: `fixed:${i}`,
    segments,
    turns: segments.filter((s) => s.kind === 'action').map(() => turn),
    turnRewards: [],
    won: i % 2 === 0,
    truncated: false
  }
}

/** Deterministic pseudo-random values in [-1, 1) per position. */
const noise = (n: number, seed: number): Float32Array => {
  const rng = Rng.make(seed)
  return Float32Array.from({ length: n }, () => rng.next() * 2 - 1)
}

const models = (withCritic: boolean, shareTrunk = false) => {
  const policy = Policy.make(modelConfig, 11)
  const critic = withCritic ? Critic.make(policy, { shareTrunk }, 5) : undefined
  return { policy, critic }
}

/** One update of the same batch from the same weights, alone or with `workers` replicas. */
const run = async (config: Config, lossKind: PolicyLoss.Name, workers: number | undefined, shareTrunk = false) => {
  const { policy, critic } = models(lossKind === 'ppo', shareTrunk)
  const reference = Policy.make(modelConfig, 12)
  const batch = Batch.make({ pad: 0 })(Array.from({ length: 7 }, (_, i) => episode(i)))
  const n = batch.batch * batch.time
  const oldLogprobs = forward.logprobs(policy, batch, temperature)
  const refLogprobs = forward.logprobs(reference, batch, temperature)
  const policyOptimizer = Optimizer.make(Policy.trainableVariables(policy))
  const criticOptimizer = critic === undefined ? undefined : Optimizer.make(Critic.trainableVariables(critic))
  const replicas = workers === undefined ? undefined : await _.start(policy, critic, workers)
  try {
    // the update owns every tensor it makes: none survives it, with replicas or without
    const metrics = await expectNoLeak(() =>
      update(
        {
          config: resolve(override({ loss: { policyLoss: lossKind } })(config)),
          policy,
          critic,
          policyOptimizer,
          criticOptimizer,
          policyLr: 0.01,
          updatePolicy: true,
          klCoef: 0.2,
          shuffle: Rng.make(3),
          ...(replicas ? { replicas } : {})
        },
        { batch, oldLogprobs, advantages: noise(n, 1), returns: noise(n, 2), ...(critic ? { oldValues: noise(n, 4) } : {}), refLogprobs }
      )
    )
    const weights = [...Policy.toHost(policy.variables).values(), ...(critic ? Policy.toHost(critic.variables).values() : [])].map((w) => w.data)
    const after = forward.logprobs(policy, batch, temperature)
    return { metrics, weights, moved: after.reduce((m, x, i) => Math.max(m, Math.abs(x - oldLogprobs[i]!)), 0) }
  } finally {
    await replicas?.dispose()
    policyOptimizer.dispose()
    criticOptimizer?.dispose()
    policy.dispose()
    critic?.dispose()
    reference.dispose()
  }
}

const expectSameUpdate = (a: Awaited<ReturnType<typeof run>>, b: Awaited<ReturnType<typeof run>>): void => {
  const keys: Array<keyof UpdateMetrics> = [
    'policyLoss',
    'valueLoss',
    'clipFraction',
    'valueClipFraction',
    'approxKl',
    'klLoss',
    'entropy',
    'policyGradNorm',
    'criticGradNorm',
    'samplerGap',
    'contextLoss',
    'steps'
  ]
  for (const k of keys) {
    if (Number.isNaN(a.metrics[k])) expect(b.metrics[k], k).toBeNaN()
    else expect(b.metrics[k], k).toBeCloseTo(a.metrics[k], 4)
  }
  expect(b.weights.length).toBe(a.weights.length)
  b.weights.forEach((w, i) => {
    const worst = w.reduce((m, x, j) => Math.max(m, Math.abs(x - a.weights[i]![j]!)), 0)
    expect(worst, `weight ${i}`).toBeLessThan(1e-4)
  })
  // the update moved the policy (equal weights are not two untouched initialisations)
  expect(a.moved).toBeGreaterThan(0.01)
}

describe('UpdateReplicas', () => {
  it('PPO with a critic, KL in the loss, a context loss and an entropy bonus: one worker takes the same steps as the trainer alone', async () => {
    const config: Config = make({
      rollout: { temperature },
      update: { epochs: 2, minibatches: 2 },
      loss: { aggregation: 'seq-mean-token-mean', entropyCoef: 0.01, contextCoef: 0.3 },
      kl: { ...Kl.none, placement: 'loss' }
    })
    const alone = await run(config, 'ppo', undefined)
    const parallel = await run(config, 'ppo', 1)
    expect(alone.metrics.steps).toBe(4)
    expect(alone.metrics.klLoss).not.toBe(0)
    expect(alone.metrics.contextLoss).toBeGreaterThan(0)
    expectSameUpdate(alone, parallel)
  }, 120_000)

  it("the clipped policy gradient with Dr. GRPO's aggregation and two workers takes the same steps as alone", async () => {
    const config: Config = make({ rollout: { temperature }, update: { epochs: 1, minibatches: 1 }, loss: { aggregation: 'seq-mean-token-sum-norm' } })
    const alone = await run(config, 'policyGradient', undefined)
    const parallel = await run(config, 'policyGradient', 2)
    expectSameUpdate(alone, parallel)
  }, 120_000)

  it("GSPO's sequence ratio (a mean over each row's action tokens) with a worker and micro-batches takes the same steps as alone", async () => {
    // a wide clip so that the ratio, not only the clip, carries the gradient; rows stay whole in every shard and micro-batch
    const config: Config = make({
      rollout: { temperature },
      update: { epochs: 1, minibatches: 1, microBatchTokens: 16 },
      loss: { aggregation: 'seq-mean-token-mean', options: { clipLow: 0.2, clipHigh: 0.2 } }
    })
    expectSameUpdate(await run(config, 'gspo', undefined), await run(config, 'gspo', 1))
  }, 120_000)

  it('micro-batches (gradient accumulation) take the same steps as whole shards: alone, with a worker, and with a critic sharing the trunk', async () => {
    // 7 episodes of 6-14 tokens in 2 minibatches: shards of ~40 tokens, cut into micro-batches of 16
    const config: Config = make({ rollout: { temperature }, update: { epochs: 1, minibatches: 2 }, loss: { entropyCoef: 0.01, contextCoef: 0.3 } })
    const micro = override({ update: { microBatchTokens: 16 } })(config)
    const whole = await run(config, 'ppo', undefined)
    expect(config.update.microBatchTokens).toBeGreaterThan(7 * 14)
    expectSameUpdate(whole, await run(micro, 'ppo', undefined))
    expectSameUpdate(whole, await run(micro, 'ppo', 1))
    expectSameUpdate(await run(config, 'ppo', undefined, true), await run(micro, 'ppo', undefined, true))
  }, 120_000)

  it('refuses a critic that shares the policy trunk, and a trainer built on other models', async () => {
    const policy = Policy.make(modelConfig, 1)
    const shared = Critic.make(policy, { shareTrunk: true }, 2)
    await expect(_.start(policy, shared, 1)).rejects.toThrow(/shares the policy trunk/)
    shared.dispose()
    policy.dispose()
  })
})
