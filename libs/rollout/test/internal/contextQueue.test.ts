import type { Sampler } from '@mtrl/core'
import { describe, expect, it } from 'vitest'
import { contextQueue } from '../../src/internal/contextQueue.js'
import { emptyTally } from '../../src/internal/tally.js'

const recording = () => {
  const calls: Array<[number[], number[][]]> = []
  const session = {
    append: (slots: ReadonlyArray<number>, tokens: ReadonlyArray<Int32Array>) => void calls.push([[...slots], tokens.map((t) => Array.from(t))])
  } as unknown as Sampler.SamplerSession
  return { calls, session }
}

describe('contextQueue', () => {
  it('appends everything queued in one call, in queue order, counts it as context tokens, and then is empty', () => {
    const { calls, session } = recording()
    const tally = emptyTally()
    const queue = contextQueue(session, tally)
    queue.flush()
    expect(calls).toEqual([])
    queue.push(2, Int32Array.of(1, 2))
    queue.push(0, Int32Array.of(3))
    queue.flush()
    queue.flush()
    expect(calls).toEqual([
      [
        [2, 0],
        [[1, 2], [3]]
      ]
    ])
    expect(tally.contextTokens).toBe(3)
  })
})
