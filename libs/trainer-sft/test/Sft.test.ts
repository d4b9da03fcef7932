import { ModelConfig, Policy, Scoring } from '@mtrl/policy'
import { Batch } from '@mtrl/rollout'
import { Arbitraries, expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Loss from '../src/Loss.js'
import * as _ from '../src/Sft.js'
import { corridorDemos, tokenizer } from './fixtures/corridor.js'

beforeAll(() => TestBackend.use('cpu'))

describe('Sft', () => {
  it('with contextWeight > 0 also learns the observations; with 0 it reports no context loss', async () => {
    const demos = await corridorDemos(8)
    const config = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
    const options = { ..._.defaultOptions, epochs: 6, batchSize: 4, learningRate: 1e-2, heldOutFraction: 0 }
    const contextNll = (p: Policy.Policy): number => {
      const batch = Batch.make({ pad: 0 })(demos)
      return tf.tidy(() => {
        const ids = tf.tensor2d(batch.ids, [batch.batch, batch.time], 'int32')
        const mask = tf.tensor2d(Loss.contextMask(batch), [batch.batch, batch.time])
        return Loss.actionLoss(Scoring.tokenLogprobs(p, { entropy: false })(ids).logprobs, mask).dataSync()[0]!
      })
    }
    const plain = Policy.make(config, 3)
    const both = Policy.make(config, 3)
    const before = contextNll(plain)
    await expectNoLeak(() => {
      const a = _.train(options)(plain)(demos)
      const b = _.train({ ...options, contextWeight: 1 })(both)(demos)
      for (const s of a.steps) expect(s['loss/context']).toBeNaN()
      for (const s of b.steps) expect(Number.isFinite(s['loss/context'])).toBe(true)
      expect(b.steps[b.steps.length - 1]!['loss/context']).toBeLessThan(b.steps[0]!['loss/context'] * 0.8)
    })
    // the context loss trains what the action loss alone leaves alone
    expect(contextNll(both)).toBeLessThan(before * 0.8)
    expect(contextNll(both)).toBeLessThan(contextNll(plain))
    plain.dispose()
    both.dispose()
  })

  it('recompute (gradient checkpointing) takes the same steps', async () => {
    const demos = await corridorDemos(6)
    const config = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 2, heads: 2, maxLen: 64 })
    const options = { ..._.defaultOptions, epochs: 1, batchSize: 3, learningRate: 1e-2, heldOutFraction: 0, contextWeight: 0.5 }
    const [plain, recomputed] = [Policy.make(config, 4), Policy.make(config, 4)]
    await expectNoLeak(() => {
      const a = _.train(options)(plain)(demos)
      const b = _.train({ ...options, recompute: true })(recomputed)(demos)
      expect(b.steps.length).toBe(2)
      b.steps.forEach((s, i) => {
        expect(s['loss/sft']).toBeCloseTo(a.steps[i]!['loss/sft'], 5)
        expect(s['grad/norm']).toBeCloseTo(a.steps[i]!['grad/norm'], 5)
      })
    })
    const wa = Policy.toHost(plain.variables)
    for (const [name, w] of Policy.toHost(recomputed.variables))
      expect(
        w.data.reduce((m, x, i) => Math.max(m, Math.abs(x - wa.get(name)!.data[i]!)), 0),
        name
      ).toBeLessThan(1e-5)
    plain.dispose()
    recomputed.dispose()
  })

  it('drives the action-token loss down on expert corridor demonstrations', async () => {
    const demos = await corridorDemos(12)
    expect(demos[0]!.won).toBe(true)
    expect(demos[0]!.segments.map((s) => s.kind)).toEqual(['prompt', 'action', 'observation', 'action', 'observation', 'action'])
    const policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 }), 3)
    await expectNoLeak(() => {
      const result = _.train({ ..._.defaultOptions, epochs: 8, batchSize: 4, learningRate: 1e-2, warmupSteps: 2, heldOutFraction: 0.25 })(policy)(demos)
      expect(result.steps.length).toBe(8 * 3)
      const last = result.epochs[result.epochs.length - 1]!
      expect(last['loss/heldout']).toBeLessThan(result.initialHeldOut * 0.5)
      expect(last['loss/train']).toBeLessThan(result.epochs[0]!['loss/train'])
      expect(result.steps[0]!['optim/lr']).toBeCloseTo(5e-3)
      for (const s of result.steps) expect(s['grad/norm']).toBeGreaterThan(0)
    })
    policy.dispose()
  })

  it('trainAsync takes the same steps as train, yields between steps, and stops early on request without leaking', async () => {
    const demos = await corridorDemos(12)
    const config = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
    const options = { ..._.defaultOptions, epochs: 3, batchSize: 4, learningRate: 1e-2, heldOutFraction: 0.25, emaDecay: 0.9 }
    const a = Policy.make(config, 3)
    const b = Policy.make(config, 3)
    const sync = _.train(options)(a)(demos)
    let ticks = 0
    const timer = setInterval(() => (ticks += 1), 0)
    const async = await _.trainAsync(options)(b)(demos)
    clearInterval(timer)
    expect(async).toEqual(sync)
    expect(ticks).toBeGreaterThan(0) // timers ran while it trained
    const wa = Policy.toHost(a.variables)
    for (const [name, w] of Policy.toHost(b.variables)) expect(Array.from(w.data)).toEqual(Array.from(wa.get(name)!.data))
    const c = Policy.make(config, 3)
    await expectNoLeak(async () => {
      let seen = 0
      const stopped = await _.trainAsync(options)(c)(demos, { onStep: () => (seen += 1) }, undefined, () => seen >= 4)
      expect(stopped).toBeUndefined()
      expect(seen).toBe(4)
    })
    ;[a, b, c].forEach((p) => p.dispose())
  })

  it('a run stopped mid-epoch and resumed from its snapshot (weights saved apart) ends exactly as one that never stopped', async () => {
    const demos = await corridorDemos(14)
    const config = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
    const options = {
      ..._.defaultOptions,
      epochs: 3,
      batchSize: 3,
      learningRate: 1e-2,
      heldOutFraction: 0.2,
      emaDecay: 0.9,
      contextWeight: 0.5,
      groupByLength: true,
      seed: 4
    }
    const whole = Policy.make(config, 5)
    const expected = await _.trainAsync(options)(whole)(demos)
    for (const stopAt of [5, 8]) {
      // 4 steps per epoch: 5 stops inside epoch 2, 8 at the end of epoch 2 (before its held-out loss)
      const first = Policy.make(config, 5)
      const saved: _.Snapshot[] = []
      let steps = 0
      const stopped = await _.trainAsync(options)(first)(demos, { onStep: () => (steps += 1) }, undefined, () => steps >= stopAt, {
        every: 3,
        save: async (s) => void saved.push(s)
      })
      expect(stopped).toBeUndefined()
      expect(saved.map((s) => s.steps.length)).toEqual(stopAt === 5 ? [3, 5] : [3, 6, 8])
      const last = saved[saved.length - 1]!
      // a new process: the weights come back from the host copy, the rest from the snapshot
      const second = Policy.fromHost(config, Policy.toHost(first.variables))
      const resumed = await expectNoLeak(() => _.trainAsync(options)(second)(demos, {}, undefined, () => false, { from: last }))
      expect(resumed).toEqual(expected)
      const want = Policy.toHost(whole.variables)
      for (const [name, w] of Policy.toHost(second.variables)) expect(Array.from(w.data), name).toEqual(Array.from(want.get(name)!.data))
      ;[first, second].forEach((p) => p.dispose())
    }
    const wrong: _.Snapshot = { ...expected!, optimizer: { steps: 12, m: [], v: [] }, average: undefined }
    await expect(_.trainAsync({ ...options, epochs: 1 })(whole)(demos, {}, undefined, () => false, { from: wrong })).rejects.toThrow(/snapshot is at step 12/)
    whole.dispose()
  })

  it('the weight average: near 0 it is the plain run; on, it still learns, without leaks', async () => {
    const demos = await corridorDemos(8)
    const config = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
    const options = { ..._.defaultOptions, epochs: 4, batchSize: 4, learningRate: 1e-2, warmupSteps: 0, heldOutFraction: 0.25 }
    const weights = (p: Policy.Policy): number[] => Policy.trainableVariables(p).flatMap((v) => Array.from(v.dataSync()))
    const plain = Policy.make(config, 3)
    const tiny = Policy.make(config, 3)
    const averaged = Policy.make(config, 3)
    await expectNoLeak(() => {
      _.train(options)(plain)(demos)
      _.train({ ...options, emaDecay: 1e-12 })(tiny)(demos)
      const result = _.train({ ...options, emaDecay: 0.9 })(averaged)(demos)
      expect(result.epochs[result.epochs.length - 1]!['loss/heldout']).toBeLessThan(result.initialHeldOut * 0.7)
    })
    const [a, b, c] = [weights(plain), weights(tiny), weights(averaged)]
    a.forEach((w, i) => expect(b[i]).toBeCloseTo(w, 5))
    expect(Math.max(...a.map((w, i) => Math.abs(w - c[i]!)))).toBeGreaterThan(1e-3)
    ;[plain, tiny, averaged].forEach((p) => p.dispose())
  })

  it('reports every step and epoch through its hooks, in order', async () => {
    const config = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 })
    const policy = Policy.make(config, 3)
    const samples = fc.sample(Arbitraries.trajectory({ vocab: tokenizer.vocabSize, maxTurns: 2, maxSegmentTokens: 3 }), { numRuns: 10, seed: 4 })
    const seen: number[] = []
    const totals = new Set<number>()
    const epochs: number[] = []
    const result = _.train({ ..._.defaultOptions, epochs: 2, batchSize: 4, heldOutFraction: 0 })(policy)(samples, {
      onStep: (m, total) => {
        seen.push(m.step)
        totals.add(total)
      },
      onEpoch: (m) => epochs.push(m.epoch)
    })
    expect(seen).toEqual(result.steps.map((m) => m.step))
    expect([...totals]).toEqual([result.steps.length])
    expect(epochs).toEqual([0, 1])
    policy.dispose()
  })
})
