import type { Trajectory } from '@mtrl/core'
import { describe, expect, it } from 'vitest'
import { Batch } from '../src/index.js'

const turn: Trajectory.Turn = { action: 'a', reward: 0, valid: true, parsed: true, score: 0, maxScore: 1 }
const episode = (seed: number, prompt: ReadonlyArray<number>, action: ReadonlyArray<number>): Trajectory.Trajectory => ({
  env: 'fixed',
  seed,
  groupId: `fixed:${seed}`,
  segments: [
    { kind: 'prompt', turn: 0, tokens: Int32Array.from(prompt) },
    { kind: 'action', turn: 0, tokens: Int32Array.from(action), logprobs: Float32Array.from(action, (x) => -x / 10) }
  ],
  turns: [turn],
  turnRewards: [0],
  won: false,
  truncated: false
})

describe('Batch.trim', () => {
  const batch = Batch.make({ pad: 0, time: 12 })([episode(0, [1, 2, 3], [4, 5]), episode(1, [6, 7], [8, 9, 10, 11])])

  it("keeps every row's tokens, mask, log-probs and turn indices and drops only padding columns", () => {
    const trimmed = Batch.trim(batch)
    expect(trimmed.time).toBe(6)
    expect(trimmed.batch).toBe(2)
    expect(Array.from(trimmed.ids)).toEqual([1, 2, 3, 4, 5, 0, 6, 7, 8, 9, 10, 11])
    expect(Array.from(trimmed.actionMask)).toEqual([0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1])
    expect(Array.from(trimmed.turnIndex)).toEqual([-1, -1, -1, 0, 0, -1, -1, -1, 0, 0, 0, 0])
    expect(Array.from(trimmed.samplerLogprobs)).toEqual(Array.from(Float32Array.of(0, 0, 0, -0.4, -0.5, 0, 0, 0, -0.8, -0.9, -1, -1.1)))
    expect(Array.from(trimmed.lengths)).toEqual([5, 6])
  })

  it('a minibatch of short rows is cut to its own longest row', () => {
    expect(Batch.trim(Batch.select([0])(batch)).time).toBe(5)
    expect(Batch.trim(Batch.make({ pad: 0 })([episode(2, [1], [2])])).time).toBe(2)
  })

  it('cropRows keeps the first columns of each row and refuses to widen', () => {
    expect(Array.from(Batch.cropRows(3, 2)(Int32Array.of(1, 2, 3, 4, 5, 6)))).toEqual([1, 2, 4, 5])
    expect(() => Batch.cropRows(2, 3)(Int32Array.of(1, 2))).toThrow(/3 columns/)
  })
})

describe('Batch: allowed-token masks of constrained actions', () => {
  const m = (id: number): Int32Array => Int32Array.of(1 << id)
  const constrained: Trajectory.Trajectory = {
    ...episode(2, [1, 2], [3, 4, 5]),
    segments: [
      { kind: 'prompt', turn: 0, tokens: Int32Array.of(1, 2) },
      { kind: 'action', turn: 0, tokens: Int32Array.of(3, 4, 5), masks: [m(3), null, m(5)] }
    ]
  }

  it('records each constrained position with its mask, compactly per row, and keeps them through select and trim', () => {
    const batch = Batch.make({ pad: 0, time: 9 })([episode(0, [1, 2, 3], [4, 5]), constrained])
    expect(batch.allowed).toEqual([
      [],
      [
        { position: 2, mask: m(3) },
        { position: 4, mask: m(5) }
      ]
    ])
    expect(Batch.trim(Batch.select([1])(batch)).allowed).toEqual([
      [
        { position: 2, mask: m(3) },
        { position: 4, mask: m(5) }
      ]
    ])
    expect(Batch.make({ pad: 0 })([episode(0, [1, 2, 3], [4, 5])]).allowed).toBeUndefined()
  })
})
