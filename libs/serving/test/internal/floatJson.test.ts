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

  it('says which texts may hold floats (a digit then ., e or E)', () => {
    expect(_.mayHoldFloats('{"a": 2, "b": true}')).toBe(false)
    expect(_.mayHoldFloats('{"a": 2.0}')).toBe(true)
    expect(_.mayHoldFloats('[1e5]')).toBe(true)
  })
})
