import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Decode.js'

const Stage = t.type({ kind: t.keyof({ sft: null, rl: null }), lr: t.number })
const Recipe = t.intersection([t.type({ name: t.string, stages: t.array(Stage) }), t.partial({ seed: t.number })])

const message = (result: E.Either<_.DecodeError, unknown>): string =>
  E.isLeft(result) ? _.formatError(result.left) : 'ok'

describe('Decode', () => {
  it('names the path of a bad nested field', () => {
    const msg = message(_.decode('recipe', Recipe)({ name: 'x', stages: [{ kind: 'rl', lr: 1 }, { kind: 'ppo', lr: 'fast' }] }))
    expect(msg).toContain('invalid recipe')
    expect(msg).toContain('stages.1.kind')
    expect(msg).toContain('stages.1.lr: expected number, got "fast"')
    expect(msg).not.toContain('stages.0')
  })

  it('names a missing field', () => {
    const msg = message(_.decode('recipe', Recipe)({ stages: [] }))
    expect(msg).toContain('name: expected string, got undefined')
  })

  it('accepts good input unchanged', () => {
    const input = { name: 'x', stages: [{ kind: 'sft', lr: 0.1 }], seed: 3 }
    expect(_.decode('recipe', Recipe)(input)).toEqual(E.right(input))
  })

  it('rejects unknown fields in strict mode, with their paths', () => {
    const msg = message(_.decodeStrict('recipe', Recipe)({ name: 'x', stages: [{ kind: 'sft', lr: 0.1, lrr: 2 }], sede: 1 }))
    expect(msg).toContain('stages.0.lrr: expected no such field')
    expect(msg).toContain('sede: expected no such field')
  })

  it('strict mode accepts exactly the known fields', () => {
    expect(E.isRight(_.decodeStrict('recipe', Recipe)({ name: 'x', stages: [], seed: 1 }))).toBe(true)
  })

  it('reports the root when the input is not an object', () => {
    expect(message(_.decode('recipe', Recipe)(42))).toContain('(root)')
  })
})
