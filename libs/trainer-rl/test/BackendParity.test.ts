/**
 * RL on the native `tensorflow` backend (what `auto` picks where `npm ci` built it) takes the same
 * iterations as on `cpu` from the same weights and seed: the same episodes are played (the sampler
 * draws on the host from logits that agree to float32 rounding), the update computes the same
 * loss, gradient norm and Adam step, and data-parallel replicas on tensorflow worker threads add
 * up the same gradient as the trainer alone. Issue 56 asked whether RL on tensorflow learns less
 * than on wasm from the same prior; a difference in any of these would show here as diverging
 * metrics within a few iterations (at rl-lift's real shape the two backends play identical
 * episodes for the first seven iterations: docs/decisions/0019). Not further: Adam's first steps
 * turn a gradient component at float32's noise floor into a step of up to the learning rate
 * whose sign is that noise's, so two correct backends part, as two GPUs do, after a while.
 */
import { ThreadInit } from '@mtrl/backend'
import type { Env } from '@mtrl/core'
import { ModelConfig, Policy } from '@mtrl/policy'
import { Services, TestBackend, Toy } from '@mtrl/testing'
import { describe, expect, it } from 'vitest'
import type { Config } from '../src/Config.js'
import type { Metrics } from '../src/Metrics.js'
import * as Trainer from '../src/Trainer.js'
import * as UpdateReplicas from '../src/UpdateReplicas.js'
import { step, template, tokenizer, toyConfig } from './fixtures/toyRun.js'

interface Trace {
  readonly metrics: ReadonlyArray<Metrics>
  readonly weights: ReadonlyArray<Float32Array>
}

/** `iterations` iterations of a tiny policy on a toy environment, on `backend`, with `workers` update replicas on the same backend. */
const train = async (backend: 'cpu' | 'tensorflow', config: Config, env: 'bandit' | 'corridor', iterations: number, workers: number): Promise<Trace> => {
  await TestBackend.use(backend)
  const model = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
  const policy = Policy.make(model, 3)
  // the KL term's reference: the initial weights (the algorithms' default KL, in the reward or the loss)
  const reference = Policy.make(model, 3)
  const envs: Env.Env[] = Array.from({ length: config.budget.seedsPerIteration * config.budget.groupSize }, () =>
    env === 'bandit' ? Toy.bandit() : Toy.corridor()
  )
  const replicas = workers > 0 ? await UpdateReplicas.start(policy, undefined, workers, ThreadInit.init(backend)) : undefined
  const trainer = Trainer.make({ config, policy, envs, template, tokenizer, contextLength: 64, reference, ...(replicas ? { replicas } : {}) })
  try {
    const metrics: Metrics[] = []
    for (let i = 0; i < iterations; i++) metrics.push(await step(trainer))
    return { metrics, weights: Policy.trainableVariables(policy).map((v) => new Float32Array(v.dataSync())) }
  } finally {
    trainer.dispose()
    await replicas?.dispose()
    policy.dispose()
    reference.dispose()
    await TestBackend.use('cpu')
  }
}

const same = (cpu: Trace, tf: Trace): void => {
  cpu.metrics.forEach((m, i) => {
    const t = tf.metrics[i]!
    // the same episodes: exact counts
    expect(t['episode/success_rate'], `iteration ${i}: success`).toBe(m['episode/success_rate'])
    expect(t['episode/turns'], `iteration ${i}: turns`).toBe(m['episode/turns'])
    expect(t['episode/return'], `iteration ${i}: return`).toBeCloseTo(m['episode/return'], 6)
    // the same update
    for (const name of ['loss/policy', 'kl/mean', 'entropy/mean', 'grad/policy_norm', 'kl/policy_change', 'clip/fraction'] as const)
      expect(Math.abs(t[name] - m[name]), `iteration ${i}: ${name}`).toBeLessThan(1e-4 * Math.max(1, Math.abs(m[name])))
    expect(t['logprob/sampler_trainer_gap'], `iteration ${i}: sampler/trainer gap`).toBeLessThan(1e-4)
  })
  cpu.weights.forEach((w, i) => {
    const worst = w.reduce((acc, x, j) => Math.max(acc, Math.abs(x - tf.weights[i]![j]!)), 0)
    expect(worst, `weight ${i}`).toBeLessThan(1e-4)
  })
  // the policy moved: equal weights are not two untouched initialisations
  expect(cpu.metrics.some((m) => m['kl/policy_change'] > 1e-4)).toBe(true)
}

describe('RL on tensorflow = RL on cpu, from the same weights and seed', () => {
  it.runIf(Services.available('tensorflow'))(
    `REINFORCE++ with dense rewards, two minibatches, one update replica: the same ${4} iterations ${Services.tag('tensorflow')}`,
    async () => {
      const config = toyConfig('reinforce++', 'corridor', { update: { minibatches: 2 } })
      same(await train('cpu', config, 'corridor', 4, 1), await train('tensorflow', config, 'corridor', 4, 1))
    },
    120_000
  )
})
