import fc from 'fast-check'
import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Settings.js'

const custom = fc.record({ rooms: fc.integer({ min: 1, max: 12 }), objects: fc.integer({ min: 0, max: 24 }), questLength: fc.integer({ min: 1, max: 12 }) })
const cooking = fc.record({ rewards: fc.constantFrom('sparse', 'balanced', 'dense'), goal: fc.constantFrom('detailed', 'brief', 'none'), test: fc.boolean() })

describe('Settings', () => {
  it('parses the paper notation and round-trips through format', () => {
    expect(_.parse('w2-o3-q4')).toEqual(E.right({ _tag: 'custom', rooms: 2, objects: 3, questLength: 4 }))
    expect(_.parse(' W8-O12-Q4 ')).toEqual(E.right({ _tag: 'custom', rooms: 8, objects: 12, questLength: 4 }))
    fc.assert(
      fc.property(custom, (c) => {
        const s: _.Settings = { _tag: 'custom', ...c }
        expect(_.parse(_.format(s))).toEqual(E.right(s))
      })
    )
    fc.assert(
      fc.property(cooking, (c) => {
        const s = _.cooking(c.rewards, c.goal, c.test)
        expect(_.parse(_.format(s))).toEqual(E.right(s))
      })
    )
  })

  it('defaults the cooking game to dense rewards and the detailed goal', () => {
    expect(_.parse('tw-simple')).toEqual(E.right(_.cooking('dense', 'detailed', false)))
    expect(_.parse('tw-simple-sparse-test')).toEqual(E.right(_.cooking('sparse', 'detailed', true)))
  })

  it('rejects malformed and out-of-range names', () => {
    for (const bad of ['w2-o3', 'w0-o3-q4', 'w2-o3-q40', 'w13-o3-q4', 'tw-simple-loud', 'cooking']) expect(E.isLeft(_.parse(bad))).toBe(true)
  })

  it('decodes both forms at the recipe boundary and names the bad field', () => {
    expect(_.SettingsInput.decode('w4-o6-q8')).toEqual(E.right({ _tag: 'custom', rooms: 4, objects: 6, questLength: 8 }))
    expect(_.SettingsInput.decode({ _tag: 'cooking', rewards: 'balanced', goal: 'brief', test: false })).toEqual(E.right(_.cooking('balanced', 'brief')))
    const bad = Decode.decode('settings', _.Settings)({ _tag: 'custom', rooms: 2, objects: 3, questLength: 1.5 })
    expect(E.isLeft(bad) && Decode.formatError(bad.left)).toMatch(/questLength/)
    expect(_.SettingsFromString.encode(_.custom(2, 3, 4))).toBe('w2-o3-q4')
  })

  it('gives the longest optimal plan for the turn budget', () => {
    expect(_.longestPlan(_.custom(4, 6, 8))).toBe(8)
    expect(_.longestPlan(_.cooking())).toBe(12)
  })
})
