import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../../src/internal/boundedJson.js'

describe('boundedJson', () => {
  it('parses what JSON.parse parses when within the limit (any JSON value, strings with brackets and escapes included)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value)
        expect(_.parse(text, 16)).toEqual(E.right(JSON.parse(text)))
      })
    )
  })

  it('refuses a 200,000-deep body without walking it, stating the limit', () => {
    const deep = '['.repeat(200_000) + ']'.repeat(200_000)
    const parsed = _.parse(deep)
    expect(E.isLeft(parsed) && parsed.left).toMatch(/at most 64 are allowed/)
    expect(_.tooDeepAt(deep, 64)).toBe(64)
  })

  it('counts nesting exactly: depth d passes a limit of d and fails d - 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), (d) => {
        const text = '{"a":'.repeat(d - 1) + '["]}\\"[{"]' + '}'.repeat(d - 1)
        expect(E.isRight(_.parse(text, d))).toBe(true)
        expect(E.isLeft(_.parse(text, d - 1))).toBe(true)
      })
    )
  })

  it('reports malformed JSON with the parser message', () => {
    expect(E.isLeft(_.parse('{"model": '))).toBe(true)
  })
})
