import { describe, expect, it } from 'vitest'
import { CHUNK_TOKENS, chunksOf } from '../../src/internal/forward.js'

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
