/**
 * `maxStaleness`: the next iterations' rollouts start before the update, with the weights of the
 * moment. The player here stands for one off this thread (`Threads` with the caller waiting):
 * it copies the weights when called into a policy of its own and plays on that, so an update
 * that runs meanwhile does not reach its episodes.
 */
import { EnvError, type Env } from '@mtrl/core'
import { ModelConfig, Policy, Sampler } from '@mtrl/policy'
import { Rollout } from '@mtrl/rollout'
import { TestBackend, Toy } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Config } from '../src/Config.js'
import * as Driver from '../src/Driver.js'
import * as Kl from '../src/Kl.js'
import type { Metrics } from '../src/Metrics.js'
import * as Trainer from '../src/Trainer.js'
import { template, tokenizer, toyConfig } from './fixtures/toyRun.js'

beforeAll(() => TestBackend.use('cpu'))

const model = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })

/** A fingerprint of a policy's weights: their sum, variable by variable. */
const fingerprint = (policy: Policy.Policy): string =>
  Object.values(policy.variables)
    .map((v) => (v.dataSync() as Float32Array).reduce((a, b) => a + b, 0).toFixed(6))
    .join(',')

interface Call {
  /** The trainer's iteration count when the player was called. */
  readonly at: number
  /** The weights it copied. */
  readonly weights: string
}

/** A trainer whose episodes a shadow policy plays, from the weights copied at each call. */
const offThreadRun = (config: Config, failAt?: number) => {
  const policy = Policy.make(model, 0)
  const shadow = Policy.make(model, 1)
  const slots = config.budget.seedsPerIteration * config.budget.groupSize
  const session = Sampler.make(shadow, { slots, maxLen: 64 })
  const calls: Call[] = []
  const envs: Env.Env[] = Array.from({ length: slots }, () => Toy.bandit())
  const play = (input: Rollout.Input): TE.TaskEither<EnvError.EnvError, Rollout.Result> => {
    const host = Policy.toHost(policy.variables)
    calls.push({ at: trainer.state.iteration, weights: fingerprint(policy) })
    const call = calls.length - 1
    return async () => {
      await Promise.resolve()
      if (call === failAt) return E.left(EnvError.transport('bandit', 'step', 'the connection dropped'))
      for (const [name, v] of Object.entries(shadow.variables)) {
        const w = host.get(name)!
        tf.tidy(() => v.assign(tf.tensor(w.data, [...w.shape])))
      }
      return Rollout.run(config.rollout)({ session, template, tokenizer, contextLength: 64 })(input)()
    }
  }
  const trainer = Trainer.make({ config, policy, envs, template, tokenizer, contextLength: 64, play })
  const weightsAfter: string[] = [fingerprint(policy)]
  const iterate = async (following?: number): Promise<E.Either<EnvError.EnvError, Metrics>> => {
    const result = await Trainer.iterate(trainer, following === undefined ? {} : { following })()
    weightsAfter.push(fingerprint(policy))
    return result
  }
  return {
    trainer,
    policy,
    calls,
    weightsAfter,
    iterate,
    dispose: () => {
      trainer.dispose()
      session.dispose()
      shadow.dispose()
      policy.dispose()
    }
  }
}

const grpo = (maxStaleness: number): Config => ({ ...toyConfig('grpo', 'bandit', { kl: Kl.none }), maxStaleness })

const right = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error(`expected a Right, got ${JSON.stringify(e.left)}`)
  return e.right
}

describe('Trainer with maxStaleness', () => {
  it('0: each iteration plays with its own weights, then updates', async () => {
    const run = offThreadRun(grpo(0))
    try {
      for (let k = 0; k < 3; k++) expect(right(await run.iterate())['rollout/staleness']).toBe(0)
      expect(run.calls).toEqual([0, 1, 2].map((k) => ({ at: k, weights: run.weightsAfter[k] })))
      expect(run.trainer.ahead).toHaveLength(0)
    } finally {
      run.dispose()
    }
  })

  it("1: iteration k + 1's episodes are played by the weights before iteration k's update", async () => {
    const run = offThreadRun(grpo(1))
    try {
      const staleness: number[] = []
      for (let k = 0; k < 4; k++) staleness.push(right(await run.iterate(3 - k))['rollout/staleness'])
      expect(staleness).toEqual([0, 1, 1, 1])
      // call 0 plays iteration 0; call k + 1 starts in iteration k, before its update: with the weights after update k - 1
      expect(run.calls).toEqual([
        { at: 0, weights: run.weightsAfter[0] },
        { at: 0, weights: run.weightsAfter[0] },
        { at: 1, weights: run.weightsAfter[1] },
        { at: 2, weights: run.weightsAfter[2] }
      ])
      // the updates changed the weights, so calls did see stale ones
      expect(run.calls.slice(1).some((c, k) => c.weights !== run.weightsAfter[k + 1])).toBe(true)
      // nothing was played for a fifth iteration (`following` 0 on the last)
      expect(run.trainer.ahead).toHaveLength(0)
    } finally {
      run.dispose()
    }
  })

  it('2: never more than 2 updates behind, and never more rollouts than iterations once the run says where it ends', async () => {
    const run = offThreadRun(grpo(2))
    try {
      const staleness: number[] = []
      for (let k = 0; k < 6; k++) staleness.push(right(await run.iterate(5 - k))['rollout/staleness'])
      expect(Math.max(...staleness)).toBeLessThanOrEqual(2)
      expect(staleness[0]).toBe(0)
      expect(Math.max(...staleness)).toBeGreaterThan(0)
      expect(run.calls).toHaveLength(6)
      for (const [k, s] of staleness.entries()) expect(run.weightsAfter[k - s]).toBe(run.calls[k]!.weights)
    } finally {
      run.dispose()
    }
  })

  it('learns the bandit one update behind (the clip against the behaviour log-probs)', async () => {
    const run = offThreadRun(grpo(1))
    try {
      const history: number[] = []
      for (let k = 0; k < 40 && (history.at(-1) ?? 0) < 0.95; k++) history.push(right(await run.iterate())['episode/success_rate'])
      expect(history[0]).toBeLessThan(0.5)
      expect(history.at(-1), history.map((x) => x.toFixed(2)).join(' ')).toBeGreaterThanOrEqual(0.95)
      await Trainer.settle(run.trainer)
    } finally {
      run.dispose()
    }
  })

  it("a rollout played ahead that fails ends the iteration that takes it with the environment's error, and nothing is left pending", async () => {
    const run = offThreadRun(grpo(1), 2)
    try {
      right(await run.iterate())
      right(await run.iterate())
      const failed = await run.iterate()
      expect(E.isLeft(failed) && failed.left._tag).toBe('Transport')
      expect(run.trainer.ahead).toHaveLength(0)
      expect(run.trainer.state.iteration).toBe(2)
    } finally {
      run.dispose()
    }
  })

  it('the driver plays exactly its budget and leaves nothing pending, also when stopped', async () => {
    const run = offThreadRun(grpo(1))
    try {
      const dir = await mkdtemp(join(tmpdir(), 'staleness-'))
      const finished = await Driver.run({ iterations: 3, dir, resume: false })(run.trainer)()
      expect(right(finished)._tag).toBe('Finished')
      expect(run.calls).toHaveLength(3)
      let iterations = 0
      const stopped = await Driver.run({ iterations: 10, dir, resume: false, stop: () => iterations >= 1, onIteration: () => void (iterations += 1) })(
        run.trainer
      )()
      expect(right(stopped)).toEqual({ _tag: 'Stopped', iteration: 4 })
      // iteration 4's rollout, started ahead in iteration 3, was played and dropped; none after the stop
      expect(run.calls).toHaveLength(5)
      expect(run.trainer.ahead).toHaveLength(0)
    } finally {
      run.dispose()
    }
  })

  it('needs a player off this thread', () => {
    const policy = Policy.make(model, 0)
    try {
      expect(() =>
        Trainer.make({ config: grpo(1), policy, envs: Array.from({ length: 16 }, () => Toy.bandit()), template, tokenizer, contextLength: 64 })
      ).toThrow(/maxStaleness 1 .* needs a player off this thread \(setup.play/)
    } finally {
      policy.dispose()
    }
  })
})
