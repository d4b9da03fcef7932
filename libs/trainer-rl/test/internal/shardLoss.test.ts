import { describe, expect, it } from 'vitest'
import { microShards } from '../../src/internal/shardLoss.js'

const shard = (rows: number, time: number) => ({
  rows,
  time,
  ids: Int32Array.from({ length: rows * time }, (_, i) => i),
  weights: Float32Array.from({ length: rows * time }, (_, i) => i / 10)
})

describe('microShards', () => {
  it('cuts a shard into consecutive rows of at most maxTokens tokens that concatenate back to it', () => {
    const s = shard(7, 5)
    const parts = microShards(12)(s)
    expect(parts.map((p) => p.rows)).toEqual([2, 2, 2, 1])
    for (const p of parts) {
      expect(p.rows * p.time).toBeLessThanOrEqual(12)
      expect(p.time).toBe(5)
      expect(p.ids.length).toBe(p.rows * p.time)
    }
    expect(parts.flatMap((p) => Array.from(p.ids))).toEqual(Array.from(s.ids))
    expect(parts.flatMap((p) => Array.from(p.weights))).toEqual(Array.from(s.weights))
  })

  it("cuts the rows' constrained positions (allowed) with their rows", () => {
    const allowed = Array.from({ length: 7 }, (_, r) => [{ position: (r % 4) + 1, mask: Int32Array.of(r) }])
    const parts = microShards(12)({ ...shard(7, 5), allowed })
    expect(parts.map((p) => p.allowed.length)).toEqual([2, 2, 2, 1])
    expect(parts.flatMap((p) => p.allowed)).toEqual(allowed)
  })

  it('keeps a shard within the budget whole, and gives a row longer than the budget a micro-batch of its own', () => {
    const s = shard(3, 4)
    expect(microShards(12)(s)[0]).toBe(s)
    expect(microShards(3)(s).map((p) => p.rows)).toEqual([1, 1, 1])
  })
})
