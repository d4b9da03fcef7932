import { Critic, ModelConfig, Policy } from '@mtrl/policy'
import type { Batch } from '@mtrl/rollout'
import { TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import { CHUNK_TOKENS, chunksOf, shiftRight, valuesAfter, valuesBefore } from '../../src/internal/forward.js'

describe('score chunks', () => {
  it('groups length-sorted rows into chunks of at most CHUNK_TOKENS tokens (rows x longest row), every row once, in order', () => {
    const lengths = [100, 200, 300, 366, 366, 366, 366, 366, 366, 366, 366, 366, 366, 366, 366, 5000]
    const order = lengths.map((_, i) => i)
    const chunks = chunksOf(order, lengths)
    expect(chunks.flat()).toEqual(order)
    for (const rows of chunks) {
      const width = Math.max(...rows.map((r) => lengths[r]!))
      if (rows.length > 1) expect(rows.length * width).toBeLessThanOrEqual(CHUNK_TOKENS)
    }
    // a row longer than the budget is a chunk of its own
    expect(chunks.at(-1)).toEqual([15])
    // 4096 / 366 = 11 rows of 366 per chunk
    expect(chunks.map((c) => c.length).slice(0, 2)).toEqual([11, 4])
  })
})

describe('the critic value alignment', () => {
  beforeAll(() => TestBackend.use('cpu'))

  it('the value at token t is of the state before t is sampled: V after ids[<t], 0 at t = 0; shiftRight is the same shift on a tensor', () => {
    const after = Float32Array.of(1, 2, 3, 4, 5, 6, 7, 8)
    const batch = { batch: 2, time: 4 } as Batch.Batch
    expect(Array.from(valuesBefore(after, batch))).toEqual([0, 1, 2, 3, 0, 5, 6, 7])
    const shifted = shiftRight(tf.tensor2d(after, [2, 4]))
    expect(Array.from(shifted.dataSync())).toEqual([0, 1, 2, 3, 0, 5, 6, 7])
    shifted.dispose()
  })

  it("with a real critic, the value at token t is the critic's last value on the prefix ids[<t] alone (rows of different lengths)", () => {
    const policy = Policy.make(ModelConfig.make({ vocab: 12, dModel: 16, layers: 1, heads: 2, maxLen: 16 }), 0)
    const critic = Critic.make(policy, { shareTrunk: false }, 1)
    const rows = [
      [3, 5, 7, 2, 9, 4],
      [6, 1, 8, 0, 0, 0]
    ]
    const lengths = Int32Array.of(6, 3)
    const batch: Batch.Batch = {
      batch: 2,
      time: 6,
      ids: Int32Array.from(rows.flat()),
      actionMask: new Float32Array(12),
      samplerLogprobs: new Float32Array(12),
      turnIndex: new Int32Array(12),
      lengths
    }
    const before = valuesBefore(valuesAfter(critic, batch), batch)
    rows.forEach((row, b) => {
      expect(before[b * 6]).toBe(0)
      for (let t = 1; t < lengths[b]!; t++) {
        const prefix = tf.tensor2d([row.slice(0, t)], [1, t], 'int32')
        const values = Critic.values(critic)(prefix)
        expect(before[b * 6 + t]!).toBeCloseTo(values.dataSync()[t - 1]!, 5)
        tf.dispose([prefix, values])
      }
    })
    critic.dispose()
    policy.dispose()
  })
})
