import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/TokenBatch.js'

describe('TokenBatch', () => {
  it('validate names the field and position of each fault', () => {
    const ok: _.TokenBatch = { batch: 1, time: 2, tokenRewards: Float32Array.of(0, 1), actionMask: Float32Array.of(1, 1) }
    const left = (input: _.TokenBatch): string => {
      const result = _.validate(input)
      return E.isLeft(result) ? result.left : 'valid'
    }
    expect(left(ok)).toBe('valid')
    expect(left({ ...ok, actionMask: Float32Array.of(1) })).toBe('actionMask: expected 2 entries (batch 1 x time 2), got 1')
    expect(left({ ...ok, actionMask: Float32Array.of(1, 0.5) })).toBe('actionMask[0][1]: expected 0 or 1, got 0.5')
    expect(left({ ...ok, tokenRewards: Float32Array.of(0, NaN) })).toBe('tokenRewards[0][1]: expected a finite number, got NaN')
    expect(left({ ...ok, values: Float32Array.of(0, Infinity) })).toBe('values[0][1]: expected a finite number, got Infinity')
    expect(left({ ...ok, groupIds: ['a', 'b'] })).toBe('groupIds: expected 1 entries (one per row, batch 1), got 2')
    expect(left({ ...ok, bootstrapValues: Float32Array.of(NaN) })).toBe('bootstrapValues[0]: expected a finite number, got NaN')
    expect(left({ ...ok, turnIndex: Int32Array.of(-1, 0) })).toBe('turnIndex[0][0]: action token with turn -1 (must be >= 0)')
  })

  it('sums row outcomes and broadcasts per-row values onto action tokens', () => {
    const input: _.TokenBatch = { batch: 2, time: 2, tokenRewards: Float32Array.of(1, 2, 0, 3), actionMask: Float32Array.of(1, 1, 0, 1) }
    expect(Array.from(_.rowOutcomes(input))).toEqual([3, 3])
    expect(Array.from(_.broadcastRows([5, 7], input.actionMask, 2))).toEqual([5, 5, 0, 7])
  })
})
