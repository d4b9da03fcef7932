import { Trajectory } from '@mtrl/core'
import { ChatTemplate, ModelConfig, Policy } from '@mtrl/policy'
import { TestBackend, Toy } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { Pool as Workers, Task } from '@mtrl/replicas'
import { beforeAll, describe, expect, it } from 'vitest'
import * as ExpertData from '../src/ExpertData.js'
import * as _ from '../src/Replicas.js'
import * as Sft from '../src/Sft.js'

beforeAll(() => TestBackend.use('cpu'))

const tokenizer = Toy.tokenizer()
const template = ChatTemplate.make(tokenizer)

/**
 * Corridor demonstrations of different lengths: demonstration i keeps its first 1 + (i % 3)
 * turns (segments after the prompt come in action, observation pairs).
 */
const demosOfMixedLength = async (n: number): Promise<Trajectory.Trajectory[]> => {
  const out: Trajectory.Trajectory[] = []
  for (let seed = 0; seed < n; seed++) {
    const played = await ExpertData.replay({ systemPrompt: '', actionFormat: 'plain' }, { template, tokenizer })(Toy.corridor(), seed, [
      'left',
      'forward',
      'forward'
    ])()
    if (E.isLeft(played)) throw new Error(played.left._tag)
    const keep = 1 + 2 * (1 + (seed % 3))
    out.push({ ...played.right, segments: played.right.segments.slice(0, keep) })
  }
  return out
}

const config = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
const options: Sft.Options = { ...Sft.defaultOptions, epochs: 3, batchSize: 4, learningRate: 1e-2, heldOutFraction: 0.2, contextWeight: 0.5, seed: 5 }

describe('Replicas', () => {
  it('SFT with one worker replica, recomputing activations, takes the same steps as SFT alone (same losses, same weights up to float order)', async () => {
    const demos = await demosOfMixedLength(14)
    expect(new Set(demos.map(Trajectory.length)).size).toBe(3)
    const alone = Policy.make(config, 7)
    const parallel = Policy.make(config, 7)
    const pool = await _.start(parallel, 1)
    try {
      expect(pool.size).toBe(1)
      const a = Sft.train(options)(alone)(demos)
      const b = Sft.train({ ...options, recompute: true })(parallel)(demos, {}, pool)
      expect(b.steps.length).toBe(a.steps.length)
      b.steps.forEach((s, i) => {
        expect(s['loss/sft']).toBeCloseTo(a.steps[i]!['loss/sft'], 4)
        expect(s['loss/context']).toBeCloseTo(a.steps[i]!['loss/context'], 4)
        expect(s['grad/norm']).toBeCloseTo(a.steps[i]!['grad/norm'], 3)
      })
      expect(b.epochs[2]!['loss/heldout']).toBeCloseTo(a.epochs[2]!['loss/heldout'], 4)
      // the run learned (so equal weights are not two untouched initialisations)
      expect(a.epochs[2]!['loss/heldout']).toBeLessThan(a.initialHeldOut - 0.5)
      const wa = Policy.toHost(alone.variables)
      for (const [name, w] of Policy.toHost(parallel.variables)) {
        const ref = wa.get(name)!.data
        const worst = w.data.reduce((m, x, i) => Math.max(m, Math.abs(x - ref[i]!)), 0)
        expect(worst, name).toBeLessThan(1e-4)
      }
    } finally {
      await pool.dispose()
      alone.dispose()
      parallel.dispose()
    }
  }, 120_000)

  it("a replica's error reaches the caller as an exception naming the replica", async () => {
    const policy = Policy.make(config, 1)
    const pool = await _.start(policy, 1)
    try {
      // a mask shorter than the ids: the replica cannot build its tensors
      const bad = { rows: 1, time: 4, ids: Int32Array.from([1, 2, 3, 4]), masks: [new Float32Array(3)] }
      const wait = Workers.dispatch(pool.workers, 'policy', Task.flatten(pool.variables), [{ shard: bad, coefs: [1] }])
      expect(() => wait()).toThrow(/replica 1 failed/)
    } finally {
      await pool.dispose()
      policy.dispose()
    }
  }, 60_000)
})
