import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../../src/internal/floatJson.js'

describe('floatJson', () => {
  it('gives the value JSON.parse gives, for any JSON text (white space, escapes, __proto__ keys, duplicates)', () => {
    const text = fc.oneof(
      fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)),
      fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v, null, 2)),
      fc.constantFrom('{"__proto__": {"x": 1}, "a": 2.0}', '{"a": 1, "a": [2.0, 3]}', '[ -0.0 , 1E2 , 1e-2 , "\\"]\\\\" ]')
    )
    fc.assert(
      fc.property(text, (t) => {
        expect(_.parse(t)).toStrictEqual(JSON.parse(t))
      })
    )
  })

  it('marks whole-number float literals by holder and key, and nothing else', () => {
    const v = _.parse('{"a": 2.0, "b": 2, "c": [1e3, 1, 2.5, -0.0], "d": {"e": 1E+2}, "s": "3.0"}') as {
      c: unknown[]
      d: object
    }
    expect(_.isFloat(v, 'a')).toBe(true)
    expect(_.isFloat(v, 'b')).toBe(false)
    expect([0, 1, 2, 3].map((i) => _.isFloat(v.c, i))).toEqual([true, false, false, true]) // 2.5 is a float anyway
    expect(_.isFloat(v.d, 'e')).toBe(true)
    expect(_.isFloat(v, 's')).toBe(false)
  })

  it('says which texts hold a whole-number float literal outside their strings', () => {
    expect(_.mayHoldFloats('{"a": 2, "b": true, "c": 2.5, "s": "1.0 \\" 3.0"}')).toBe(false)
    expect(_.mayHoldFloats('{"a": 2.0}')).toBe(true)
    expect(_.mayHoldFloats('[-1e5]')).toBe(true)
  })

  it('finds a whole float literal outside strings whatever JSON surrounds it, and none where there is none', () => {
    const value = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v))
    fc.assert(
      fc.property(value, fc.integer({ min: -1000, max: 1000 }), (v, n) => {
        expect(_.mayHoldFloats(`{"v": ${v}, "f": ${n}.0}`)).toBe(true)
      })
    )
    // JSON.stringify writes a whole number without a fraction (2.0 is 2; from 1e21 on it writes 1e+21,
    // a float to Python too): such a text needs no second parse
    fc.assert(
      fc.property(value, (v) => {
        fc.pre(!/\de\+/.test(v))
        expect(_.mayHoldFloats(v)).toBe(false)
      })
    )
  })
})
