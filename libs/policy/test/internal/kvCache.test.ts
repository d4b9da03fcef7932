import { Rng } from '@mtrl/core'
import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Decoder from '../../src/Decoder.js'
import { defaultKernel } from '../../src/internal/attendKernel.js'
import { makeCurrentWeights } from '../../src/internal/currentWeights.js'
import { forward } from '../../src/internal/decode.js'
import { liveArenas } from '../../src/internal/kvArena.js'
import * as _ from '../../src/internal/kvCache.js'
import * as ModelConfig from '../../src/ModelConfig.js'
import * as Policy from '../../src/Policy.js'
import * as Sampler from '../../src/Sampler.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const gqa = ModelConfig.make({ vocab: 40, dModel: 32, layers: 2, heads: 4, kvHeads: 2, ffn: 48, maxLen: 96, prevTokenEmbedding: true })
/** Head width 6: not a multiple of 4, so no arena. */
const narrow = ModelConfig.make({ vocab: 40, dModel: 24, layers: 2, heads: 4, ffn: 48, maxLen: 96 })

const tokens = (seed: number, n: number): Int32Array => {
  const rng = Rng.make(seed)
  return Int32Array.from({ length: n }, () => rng.int(40))
}

/** Log-softmax of the next-token logits after `sequence` by a full forward pass. */
const reference = (policy: Policy.Policy, sequence: Int32Array): Float32Array =>
  tf.tidy(() => {
    const logits = Policy.logits(policy)(tf.tensor2d([Array.from(sequence)], [1, sequence.length], 'int32'))
    const last = tf.slice(logits, [0, sequence.length - 1, 0], [1, 1, policy.config.vocab])
    return tf.logSoftmax(tf.reshape(last, [policy.config.vocab])).dataSync() as Float32Array
  })

const logSoftmax = (z: Float32Array): Float32Array => {
  const max = Math.max(...z)
  const lse = max + Math.log(z.reduce((s, v) => s + Math.exp(v - max), 0))
  return z.map((v) => v - lse)
}

/** Slot 0 fed `a` in two pieces beside slot 1 fed `b`: the logits after the whole of `a`. */
const decodeOn = (policy: Policy.Policy, cache: _.Cache, a: Int32Array, b: Int32Array, layout: 'copy' | 'shared' = 'copy'): Float32Array => {
  const weights = makeCurrentWeights(policy, layout)
  forward(weights.prepared(), cache, [
    { slot: 0, tokens: a.subarray(0, 5) },
    { slot: 1, tokens: b }
  ])
  const logits = forward(weights.prepared(), cache, [{ slot: 0, tokens: a.subarray(5) }])
  weights.dispose()
  return logits
}

describe('kvCache', () => {
  it("the fallback (plain arrays, JavaScript attend) and the kernel's memory decode alike, and as the full forward pass", () => {
    const policy = Policy.make(gqa, 3)
    const [a, b] = [tokens(1, 40), tokens(2, 23)]
    const fallback = _.makeCache(gqa, 2, 96, undefined)
    const kernel = _.makeCache(gqa, 2, 96, defaultKernel())
    expect(fallback.arena).toBeUndefined()
    expect(kernel.arena).toBeDefined()
    const js = decodeOn(policy, fallback, a, b)
    const wasm = decodeOn(policy, kernel, a, b)
    expect(fallback.capacity).toBe(64) // grown by doubling
    expect(kernel.capacity).toBe(96) // full length from the start
    expect(js.reduce((m, x, i) => Math.max(m, Math.abs(x - wasm[i]!)), 0)).toBeLessThan(1e-4)
    const want = reference(policy, a)
    for (const logits of [js, wasm]) logSoftmax(logits).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 4))
    _.disposeCache(fallback)
    _.disposeCache(kernel)
    policy.dispose()
  })

  it('keeps a head width that is not a multiple of 4 on the JavaScript kernel, which still decodes as the full forward pass', () => {
    expect(_.makeCache(narrow, 2, 96, defaultKernel()).arena).toBeUndefined()
    const policy = Policy.make(narrow, 4)
    const decoder = Decoder.make(policy, { slots: 2, maxLen: 96 })
    const a = tokens(3, 17)
    decoder.feed([{ slot: 1, tokens: tokens(4, 9) }])
    const [last] = decoder.feed([{ slot: 0, tokens: a }])
    const want = reference(policy, a)
    logSoftmax(last!).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 4))
    decoder.dispose()
    policy.dispose()
  })

  it("the shared layout (the trunk's own weights, flagged products) decodes as the full forward pass: norms, biases, canon, learned positions, LoRA", async () => {
    const configs = [
      { ...gqa, qkvBias: true, canonSpan: 2 },
      ModelConfig.make({
        vocab: 40,
        dModel: 32,
        layers: 2,
        heads: 2,
        maxLen: 96,
        positional: 'learned',
        norm: 'layernorm',
        activation: 'gelu',
        tiedEmbeddings: true
      }),
      { ...gqa, qkNorm: 'head' as const, prevTokenEmbedding: false }
    ]
    for (const [c, config] of configs.entries()) {
      const policy = Policy.make(config, 7, c === 0 ? { lora: { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj', 'o_proj', 'down_proj'] } } : {})
      // every weight drawn (norm weights, biases, canon, adapters' B): a weight the layout drops or misplaces shows
      tf.tidy(() => Object.values(policy.variables).forEach((v, i) => v.assign(tf.add(tf.randomNormal(v.shape, 0, 0.3, 'float32', 100 + i), v))))
      const [a, b] = [tokens(11 + c, 30), tokens(12 + c, 9)]
      const want = reference(policy, a)
      await expectNoLeak(() => {
        const cache = _.makeCache(config, 2, 96, defaultKernel())
        const got = logSoftmax(decodeOn(policy, cache, a, b, 'shared'))
        got.forEach((v, i) => expect(v, `config ${c}`).toBeCloseTo(want[i]!, 4))
        _.disposeCache(cache)
      })
      policy.dispose()
    }
  })

  it('disposeCache frees the arena and drops the keys and values', () => {
    const before = liveArenas()
    const cache = _.makeCache(gqa, 2, 96, defaultKernel())
    expect(liveArenas()).toBe(before + 1)
    _.disposeCache(cache)
    expect(liveArenas()).toBe(before)
    expect(cache.k.every((k) => k.length === 0) && cache.v.every((v) => v.length === 0)).toBe(true)
  })

  it('a disposed session frees its kernel instance: many sessions made and disposed leave none live', () => {
    const policy = Policy.make(gqa, 5)
    const before = liveArenas()
    for (let i = 0; i < 100; i++) {
      const session = Sampler.make(policy, { slots: 8, maxLen: 96 })
      expect(liveArenas()).toBe(before + 1)
      session.append([0], [tokens(i, 3)])
      session.dispose()
    }
    expect(liveArenas()).toBe(before)
    policy.dispose()
  })
})
