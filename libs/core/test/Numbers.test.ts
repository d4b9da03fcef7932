import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import * as Decode from '../src/Decode.js'
import * as _ from '../src/Numbers.js'

const accepts = (codec: t.Type<number, number, unknown>, x: unknown): boolean => E.isRight(codec.decode(x))

describe('Numbers', () => {
  it('decode and is agree, and decoding keeps the number (round trip)', () => {
    const codecs = [_.PositiveInt, _.NonNegativeInt, _.Positive, _.NonNegative, _.Fraction, _.UnitInterval, _.Finite]
    fc.assert(
      fc.property(fc.oneof(fc.double(), fc.integer(), fc.constantFrom(Number.NaN, Infinity, -Infinity, -0)), (x) => {
        for (const c of codecs) {
          expect(accepts(c, x)).toBe(c.is(x))
          if (c.is(x)) expect(c.decode(x)).toEqual(E.right(c.encode(x)))
        }
      })
    )
  })

  it('each codec draws its line where it says', () => {
    expect([1, 0, -1, 1.5].map((x) => accepts(_.PositiveInt, x))).toEqual([true, false, false, false])
    expect([1, 0, -1, 1.5].map((x) => accepts(_.NonNegativeInt, x))).toEqual([true, true, false, false])
    expect([1e-9, 0, Infinity].map((x) => accepts(_.Positive, x))).toEqual([true, false, false])
    expect([0, -1e-9, Number.NaN].map((x) => accepts(_.NonNegative, x))).toEqual([true, false, false])
    expect([0, 0.999, 1].map((x) => accepts(_.Fraction, x))).toEqual([true, true, false])
    expect([0, 1, 1.01].map((x) => accepts(_.UnitInterval, x))).toEqual([true, true, false])
    expect(['3', null, undefined].map((x) => accepts(_.Finite, x))).toEqual([false, false, false])
  })

  it('a failure names the field and what was expected', () => {
    const result = Decode.decode('recipe', t.type({ iterations: _.PositiveInt }))({ iterations: -5 })
    expect(E.isLeft(result) ? Decode.formatError(result.left) : 'ok').toContain('iterations: expected a positive integer, got -5')
  })
})
