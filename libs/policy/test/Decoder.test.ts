import { Rng } from '@mtrl/core'
import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Decoder.js'
import * as ModelConfig from '../src/ModelConfig.js'
import * as Policy from '../src/Policy.js'
import { randomCanon } from './randomCanon.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const plain = ModelConfig.make({ vocab: 40, dModel: 32, layers: 2, heads: 4, kvHeads: 2, ffn: 48, maxLen: 96, qkvBias: true, prevTokenEmbedding: true })
const canon = ModelConfig.make({
  vocab: 40,
  dModel: 32,
  layers: 2,
  heads: 4,
  ffn: 48,
  maxLen: 96,
  tiedEmbeddings: true,
  prevTokenEmbedding: true,
  canonSpan: 3
})

const tokens = (seed: number, n: number): Int32Array => {
  const rng = Rng.make(seed)
  return Int32Array.from({ length: n }, () => rng.int(40))
}

/** Log-softmax of the last position of `sequence` by a full forward (Scoring), as a reference. */
const nextLogprobs = (policy: Policy.Policy, sequence: Int32Array): Float32Array =>
  tf.tidy(() => {
    const ids = tf.tensor2d([Array.from(sequence)], [1, sequence.length], 'int32')
    const logits = Policy.logits(policy)(ids)
    const last = tf.slice(logits, [0, sequence.length - 1, 0], [1, 1, plain.vocab])
    return tf.logSoftmax(tf.reshape(last, [plain.vocab])).dataSync() as Float32Array
  })

const logSoftmax = (z: Float32Array): Float32Array => {
  const max = Math.max(...z)
  const lse = max + Math.log(z.reduce((s, v) => s + Math.exp(v - max), 0))
  return z.map((v) => v - lse)
}

describe('Decoder', () => {
  it('feeding in pieces, several slots per call, gives the next-token distribution of a full forward pass', async () => {
    const policy = Policy.make(plain, 3)
    await expectNoLeak(() => {
      const decoder = _.make(policy, { slots: 2, maxLen: 96 })
      const a = tokens(1, 13)
      const b = tokens(2, 7)
      decoder.feed([
        { slot: 0, tokens: a.subarray(0, 5) },
        { slot: 1, tokens: b }
      ])
      const [last] = decoder.feed([{ slot: 0, tokens: a.subarray(5) }])
      expect(Array.from(decoder.tokens(0))).toEqual(Array.from(a))
      expect(decoder.length(1)).toBe(7)
      const want = nextLogprobs(policy, a)
      logSoftmax(last!).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 4))
      decoder.dispose()
    })
    policy.dispose()
  })

  it("a row's logits do not depend on the other rows of the call (bitwise)", () => {
    const policy = Policy.make(plain, 4)
    const alone = _.make(policy, { slots: 3, maxLen: 96 })
    const shared = _.make(policy, { slots: 3, maxLen: 96 })
    const [x] = alone.feed([{ slot: 1, tokens: tokens(5, 9) }])
    const [, y] = shared.feed([
      { slot: 0, tokens: tokens(6, 20) },
      { slot: 1, tokens: tokens(5, 9) },
      { slot: 2, tokens: [4] }
    ])
    expect(Array.from(y!)).toEqual(Array.from(x!))
    alone.dispose()
    shared.dispose()
    policy.dispose()
  })

  it('truncate then feed the rest gives the logits of the uncut sequence; a copied prefix continues as the original', () => {
    const policy = Policy.make(plain, 5)
    const decoder = _.make(policy, { slots: 3, maxLen: 96 })
    const seq = tokens(7, 20)
    const [full] = decoder.feed([{ slot: 0, tokens: seq }])
    decoder.feed([{ slot: 1, tokens: tokens(8, 30) }])
    decoder.truncate(0, 11)
    expect(decoder.length(0)).toBe(11)
    const [again] = decoder.feed([{ slot: 0, tokens: seq.subarray(11) }])
    expect(Array.from(again!)).toEqual(Array.from(full!))
    decoder.copy(0, 2, 12)
    expect(Array.from(decoder.tokens(2))).toEqual(Array.from(seq.subarray(0, 12)))
    const [copied] = decoder.feed([{ slot: 2, tokens: seq.subarray(12) }])
    expect(Array.from(copied!)).toEqual(Array.from(full!))
    decoder.copy(1, 0, 30) // over a slot that held another sequence
    const [fromCopy] = decoder.feed([{ slot: 0, tokens: [3] }])
    const [fromOriginal] = decoder.feed([{ slot: 1, tokens: [3] }])
    expect(Array.from(fromCopy!)).toEqual(Array.from(fromOriginal!))
    decoder.dispose()
    policy.dispose()
  })

  it('with canon mixing too, a slot cut back or copied at any point continues exactly', () => {
    const policy = randomCanon(Policy.make(canon, 6), 9)
    const decoder = _.make(policy, { slots: 3, maxLen: 96 })
    const seq = tokens(10, 16)
    const [full] = decoder.feed([{ slot: 0, tokens: seq }])
    decoder.copy(0, 1, 7)
    decoder.truncate(0, 5)
    decoder.feed([{ slot: 2, tokens: tokens(11, 12) }])
    const [a] = decoder.feed([{ slot: 0, tokens: seq.subarray(5) }])
    const [b] = decoder.feed([{ slot: 1, tokens: seq.subarray(7) }])
    expect(Array.from(a!)).toEqual(Array.from(full!))
    expect(Array.from(b!)).toEqual(Array.from(full!))
    expect(decoder.canTruncate(0, 17)).toBe(false)
    expect(() => decoder.truncate(0, 17)).toThrow(/cannot keep/)
    decoder.dispose()
    policy.dispose()
  })

  it('refuses bad feeds (a slot twice, no tokens, past maxLen, ids outside the vocabulary) and an unknown weights layout', () => {
    const policy = Policy.make(plain, 1)
    const decoder = _.make(policy, { slots: 2, maxLen: 8 })
    expect(() =>
      decoder.feed([
        { slot: 0, tokens: [1] },
        { slot: 0, tokens: [2] }
      ])
    ).toThrow(/twice/)
    expect(() => decoder.feed([{ slot: 0, tokens: [] }])).toThrow(/no tokens/)
    expect(() => decoder.feed([{ slot: 0, tokens: tokens(1, 9) }])).toThrow(/maxLen/)
    expect(() => decoder.feed([{ slot: 1, tokens: [40] }])).toThrow(/vocabulary/)
    expect(() => decoder.feed([{ slot: 2, tokens: [1] }])).toThrow(/out of range/)
    decoder.dispose()
    expect(() => decoder.length(0)).toThrow(/dispose/)
    expect(() => _.make(policy, { slots: 1, maxLen: 8, weights: 'merged' as 'copy' })).toThrow(/weights must be 'copy' or 'shared', got merged/)
    policy.dispose()
  })
})
