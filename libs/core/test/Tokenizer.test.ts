import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Tokenizer.js'

describe('Tokenizer', () => {
  it('concat keeps every id in order (same as flattening)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }))), (parts) => {
        expect(Array.from(_.concat(parts))).toEqual(parts.flat())
      })
    )
  })

  it('concat of Int32Arrays and plain arrays', () => {
    expect(Array.from(_.concat([Int32Array.of(1, 2), [3], []]))).toEqual([1, 2, 3])
  })
})
