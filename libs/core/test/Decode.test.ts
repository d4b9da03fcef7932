import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Decode.js'

const Stage = t.type({ kind: t.keyof({ sft: null, rl: null }), lr: t.number })
const Recipe = t.intersection([t.type({ name: t.string, stages: t.array(Stage) }), t.partial({ seed: t.number })])

const message = (result: E.Either<_.DecodeError, unknown>): string => (E.isLeft(result) ? _.formatError(result.left) : 'ok')

describe('Decode', () => {
  it('names the path of a bad nested field', () => {
    const msg = message(
      _.decode(
        'recipe',
        Recipe
      )({
        name: 'x',
        stages: [
          { kind: 'rl', lr: 1 },
          { kind: 'ppo', lr: 'fast' }
        ]
      })
    )
    expect(msg).toContain('invalid recipe')
    expect(msg).toContain('stages.1.kind')
    expect(msg).toContain('stages.1.lr: expected number, got "fast"')
    expect(msg).not.toContain('stages.0')
  })

  it('names a missing field', () => {
    const msg = message(_.decode('recipe', Recipe)({ stages: [] }))
    expect(msg).toContain('name: missing; expected string')
  })

  it('accepts good input unchanged', () => {
    const input = { name: 'x', stages: [{ kind: 'sft', lr: 0.1 }], seed: 3 }
    expect(_.decode('recipe', Recipe)(input)).toEqual(E.right(input))
  })

  it('rejects unknown fields in strict mode, with their paths', () => {
    const msg = message(_.decodeStrict('recipe', Recipe)({ name: 'x', stages: [{ kind: 'sft', lr: 0.1, lrr: 2 }], sede: 1 }))
    expect(msg).toContain('stages.0.lrr: unknown field')
    expect(msg).toContain('sede: unknown field')
  })

  it('suggests the nearest known name for an unknown field, when one is near', () => {
    const msg = message(_.decodeStrict('recipe', Recipe)({ name: 'x', stages: [{ kind: 'sft', lr: 0.1, lrr: 2 }], sede: 1, zzzzzz: 0 }))
    expect(msg).toContain('stages.0.lrr: unknown field (did you mean "lr"?)')
    expect(msg).toContain('sede: unknown field (did you mean "seed"?)')
    expect(msg).toMatch(/zzzzzz: unknown field$/m)
  })

  describe('a union told apart by a field (kind, _tag, type)', () => {
    const Env = t.union([
      t.intersection([t.type({ kind: t.literal('textworld'), settings: t.string }), t.partial({ admissible: t.boolean })]),
      t.type({ kind: t.literal('alfworld'), split: t.keyof({ train: null, test: null }) }),
      t.union([t.type({ kind: t.literal('http'), url: t.string }), t.type({ kind: t.literal('queue'), queue: t.string })])
    ])
    const Stage = t.type({ env: Env })
    const first = (input: unknown): string => message(_.decode('stage', Stage)(input)).split('\n')[1]!.trim()

    it('a missing value names the alternatives and the deciding field in one line', () => {
      expect(message(_.decode('stage', Stage)({}))).toBe(
        'invalid stage:\n  env: missing; one of textworld | alfworld | http | queue (the field "kind" decides)'
      )
    })
    it('a missing or unknown deciding field names the alternatives', () => {
      expect(first({ env: { settings: 'w1' } })).toBe('env.kind: missing; one of textworld | alfworld | http | queue (the field that decides the rest)')
      expect(first({ env: { kind: 'tw' } })).toBe('env.kind: expected one of textworld | alfworld | http | queue, got "tw"')
    })
    it('a known kind reports only its own fields, also inside a nested union', () => {
      expect(message(_.decode('stage', Stage)({ env: { kind: 'alfworld', split: 'dev' } }))).toBe(
        'invalid stage:\n  env.split: expected "train" | "test", got "dev"'
      )
      expect(message(_.decode('stage', Stage)({ env: { kind: 'queue' } }))).toBe('invalid stage:\n  env.queue: missing; expected string')
    })
  })

  it('strict mode accepts exactly the known fields', () => {
    expect(E.isRight(_.decodeStrict('recipe', Recipe)({ name: 'x', stages: [], seed: 1 }))).toBe(true)
  })

  it('reports the root when the input is not an object', () => {
    expect(message(_.decode('recipe', Recipe)(42))).toContain('(root)')
  })

  describe('withRules', () => {
    const Range = _.withRules(t.type({ low: t.number, high: t.number }), (r) =>
      r.low <= r.high ? [] : [{ path: ['high'], expected: `at least low (${r.low})`, actual: r.high }]
    )
    const Config = t.type({ name: t.string, range: Range })
    const Stages = t.type({
      stages: t.array(t.union([t.type({ kind: t.literal('sft') }), t.intersection([t.type({ kind: t.literal('rl') }), t.partial({ range: Range })])]))
    })

    it('reports a broken rule at its field, under the path of the value, and keeps the value when it holds', () => {
      expect(message(_.decode('config', Config)({ name: 'a', range: { low: 2, high: 1 } }))).toBe(
        'invalid config:\n  range.high: expected at least low (2), got 1'
      )
      expect(_.decode('config', Config)({ name: 'a', range: { low: 1, high: 2 } })).toEqual(E.right({ name: 'a', range: { low: 1, high: 2 } }))
      expect(Range.is({ low: 2, high: 1 })).toBe(false)
      expect(Range.is({ low: 1, high: 1 })).toBe(true)
    })

    it('checks the rules only once the fields decode (a bad field is reported, not the rule)', () => {
      expect(message(_.decode('config', Config)({ name: 'a', range: { low: 'x', high: 1 } }))).toBe('invalid config:\n  range.low: expected number, got "x"')
    })

    it('names the path through arrays, unions and intersections', () => {
      expect(message(_.decode('recipe', Stages)({ stages: [{ kind: 'sft' }, { kind: 'rl', range: { low: 5, high: 0 } }] }))).toBe(
        'invalid recipe:\n  stages.1.range.high: expected at least low (5), got 0'
      )
    })

    it('a violation with a message is that whole message at its field', () => {
      const Stage = _.withRules(t.partial({ episodes: t.number, data: t.string }), (st) =>
        st.episodes === undefined && st.data === undefined
          ? [{ path: [], expected: 'episodes or data', actual: st, message: 'a stage needs "episodes" or "data"' }]
          : []
      )
      expect(message(_.decode('recipe', t.type({ stages: t.array(Stage) }))({ stages: [{ episodes: 3 }, {}] }))).toBe(
        'invalid recipe:\n  stages.1: a stage needs "episodes" or "data"'
      )
    })

    it('lets decodeStrict see the fields inside', () => {
      expect(message(_.decodeStrict('config', Config)({ name: 'a', range: { low: 1, high: 2, hgih: 3 } }))).toContain(
        'range.hgih: unknown field (did you mean "high"?)'
      )
    })
  })

  it('withDefaults: overrides over the defaults, an omitted or undefined field the default, unknown and bad fields named', () => {
    const options = _.withDefaults('gae options', t.type({ gamma: t.number, lambda: t.number }), { gamma: 1, lambda: 1 })
    expect(options({ lambda: 0.95 })).toEqual(E.right({ gamma: 1, lambda: 0.95 }))
    expect(options(undefined)).toEqual(E.right({ gamma: 1, lambda: 1 }))
    expect(options({ gamma: undefined })).toEqual(E.right({ gamma: 1, lambda: 1 }))
    const unknown = options({ lamda: 0.9 })
    expect(E.isLeft(unknown) && _.formatError(unknown.left)).toMatch(/lamda: unknown field \(did you mean "lambda"\?\)/)
    const bad = options({ gamma: 'x' })
    expect(E.isLeft(bad) && _.formatError(bad.left)).toMatch(/gamma: expected number, got "x"/)
  })
})
