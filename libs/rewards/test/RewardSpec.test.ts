import { Decode, RewardFn } from '@mtrl/core'
import { Arbitraries } from '@mtrl/testing'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as Dense from '../src/Dense.js'
import * as Density from '../src/Density.js'
import * as Environment from '../src/Environment.js'
import * as Outcome from '../src/Outcome.js'
import * as Penalty from '../src/Penalty.js'
import * as _ from '../src/RewardSpec.js'
import * as TestPass from '../src/TestPass.js'

const decode = Decode.decodeStrict('reward', _.RewardSpec)

const specArb: fc.Arbitrary<_.RewardSpec> = fc
  .record({
    base: fc.oneof(
      fc.constant({ kind: 'outcome' as const }),
      fc.constant({ kind: 'dense' as const }),
      fc.constant({ kind: 'environment' as const }),
      fc.double({ min: 0, max: 1, noNaN: true }).map((fraction) => ({ kind: 'density' as const, fraction: fraction + 0 })),
      fc.constant({ kind: 'testPassRatio' as const }),
      fc.constant({ kind: 'binary' as const })
    ),
    shaping: fc.record(
      {
        scale: fc.double({ min: -3, max: 3, noNaN: true }).map((x) => x + 0), // JSON has no -0
        invalidActionPenalty: fc.double({ min: 0, max: 1, noNaN: true }).map((x) => x + 0),
        formatPenalty: fc.double({ min: 0, max: 1, noNaN: true }).map((x) => x + 0),
        turnCost: fc.double({ min: 0, max: 1, noNaN: true }).map((x) => x + 0)
      },
      { requiredKeys: [] }
    )
  })
  .map(({ base, shaping }) => ({ ...base, ...shaping }))

describe('RewardSpec', () => {
  it('round-trips through JSON with its codec', () => {
    fc.assert(
      fc.property(specArb, (spec) => {
        const back = decode(JSON.parse(JSON.stringify(_.RewardSpec.encode(spec))))
        expect(back).toEqual(E.right(spec))
      })
    )
  })

  it('builds scale * base + penalties', () => {
    fc.assert(
      fc.property(specArb, Arbitraries.trajectory(), (spec, trajectory) => {
        const base =
          spec.kind === 'outcome'
            ? Outcome.outcome
            : spec.kind === 'dense'
              ? Dense.dense
              : spec.kind === 'environment'
                ? Environment.environment
                : spec.kind === 'density'
                  ? Density.density(spec.fraction)
                  : spec.kind === 'testPassRatio'
                    ? TestPass.testPassRatio
                    : TestPass.binary
        const expected = RewardFn.sum([
          RewardFn.scale(spec.scale ?? 1)(base),
          Penalty.invalidActionPenalty(spec.invalidActionPenalty ?? 0),
          Penalty.formatPenalty(spec.formatPenalty ?? 0),
          Penalty.turnCost(spec.turnCost ?? 0)
        ])(trajectory)
        const actual = _.fromSpec(spec)(trajectory)
        expect(actual.length).toBe(expected.length)
        actual.forEach((r, k) => expect(r).toBeCloseTo(expected[k]!, 10))
      })
    )
  })

  it("environment: the turns' own rewards, unchanged (dense would renormalise them)", () => {
    fc.assert(
      fc.property(Arbitraries.trajectory(), (trajectory) => {
        expect(_.fromSpec({ kind: 'environment' })(trajectory)).toEqual(trajectory.turns.map((t) => t.reward))
      })
    )
    expect(decode({ kind: 'environment', invalidActionPenalty: 0.1 })).toEqual(E.right({ kind: 'environment', invalidActionPenalty: 0.1 }))
  })

  it("reads a recipe's reward design", () => {
    const spec = decode({ kind: 'density', fraction: 0.5, formatPenalty: 0.1 })
    expect(spec).toEqual(E.right({ kind: 'density', fraction: 0.5, formatPenalty: 0.1 }))
  })

  it('names the bad field of a wrong design', () => {
    const message = (u: unknown): string => {
      const result = decode(u)
      return E.isLeft(result) ? Decode.formatError(result.left) : 'valid'
    }
    expect(message({ kind: 'density', fraction: 2 })).toContain('fraction: expected a number in [0, 1], got 2')
    expect(message({ kind: 'dense', turnCost: -1 })).toContain('turnCost: expected a finite number >= 0, got -1')
    expect(message({ kind: 'dense', penalty: 1 })).toContain('penalty: unknown field')
    expect(message({ kind: 'shaped' })).toContain('kind')
  })
})
