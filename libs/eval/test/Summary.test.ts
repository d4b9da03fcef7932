import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Summary.js'

const episode = (won: boolean, valid: ReadonlyArray<boolean>, rewards: ReadonlyArray<number>, taskType?: string): _.Outcome => ({
  won,
  turns: valid.map((v) => ({ valid: v })),
  turnRewards: rewards,
  taskType
})

describe('wilson', () => {
  it('matches a reference value and contains the estimate', () => {
    // 90 successes of 100: Wilson 95% interval [0.8256, 0.9448]
    const i = _.wilson(90, 100)
    expect(i.low).toBeCloseTo(0.8256, 3)
    expect(i.high).toBeCloseTo(0.9448, 3)
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 500 }), fc.nat(), (n, k0) => {
        const k = k0 % (n + 1)
        const { low, high } = _.wilson(k, n)
        expect(low).toBeLessThanOrEqual(k / n + 1e-12)
        expect(high).toBeGreaterThanOrEqual(k / n - 1e-12)
        expect(low).toBeGreaterThanOrEqual(0)
        expect(high).toBeLessThanOrEqual(1)
      })
    )
  })

  it('is [0, 1] without episodes and narrows as n grows at a fixed rate', () => {
    expect(_.wilson(0, 0)).toEqual({ low: 0, high: 1 })
    const width = (n: number): number => {
      const i = _.wilson(n / 2, n)
      return i.high - i.low
    }
    expect(width(10)).toBeGreaterThan(width(100))
    expect(width(100)).toBeGreaterThan(width(1000))
  })
})

describe('summarise', () => {
  it('computes rates per episode and per turn, and per task type', () => {
    const s = _.summarise('alfworld/train', [
      episode(true, [true, false, true], [0, 0, 1], 'pick'),
      episode(false, [false], [0.5], 'heat'),
      episode(true, [true, true], [0, 1], 'pick'),
      episode(false, [true, true, true, true], [0, 0, 0, 0], 'heat')
    ])
    expect(s).toEqual({
      env: 'alfworld/train',
      episodes: 4,
      successRate: 0.5,
      ci95: _.wilson(2, 4),
      turnsMean: 10 / 4,
      returnMean: 2.5 / 4,
      invalidRate: 2 / 10,
      perTaskType: { pick: { episodes: 2, successRate: 1 }, heat: { episodes: 2, successRate: 0 } }
    })
  })

  it('is all zeros without episodes, and has no task types when none are given', () => {
    expect(_.summarise('x', [])).toEqual({
      env: 'x',
      episodes: 0,
      successRate: 0,
      ci95: { low: 0, high: 1 },
      turnsMean: 0,
      returnMean: 0,
      invalidRate: 0,
      perTaskType: {}
    })
    expect(_.summarise('x', [episode(true, [true], [1])]).perTaskType).toEqual({})
  })

  it('success rate is the share of wins, and per-type episodes add up to the typed episodes', () => {
    const arb = fc.array(fc.record({ won: fc.boolean(), n: fc.nat({ max: 5 }), type: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }) }))
    fc.assert(
      fc.property(arb, (rows) => {
        const s = _.summarise(
          'e',
          rows.map((r) => episode(r.won, Array(r.n).fill(true), Array(r.n).fill(0), r.type))
        )
        expect(s.successRate).toBeCloseTo(rows.length === 0 ? 0 : rows.filter((r) => r.won).length / rows.length, 12)
        expect(Object.values(s.perTaskType).reduce((n, t) => n + t.episodes, 0)).toBe(rows.filter((r) => r.type !== undefined).length)
      })
    )
  })
})

describe('format', () => {
  it('one line per environment: success with its interval, turns, invalid actions, the seeds played', () => {
    const s = _.summarise('bandit', [
      { won: true, turns: [{ valid: true }, { valid: false }], turnRewards: [1] },
      { won: false, turns: [{ valid: true }], turnRewards: [0] }
    ])
    expect(_.format([s, { ...s, env: 'other', seeds: { split: 'test', first: 0, count: 2 } }])).toBe(
      `  bandit                             success  50.0% [${(100 * s.ci95.low).toFixed(1)}%, ${(100 * s.ci95.high).toFixed(1)}%]  turns 1.5  invalid 33.3%\n` +
        `  other                              success  50.0% [${(100 * s.ci95.low).toFixed(1)}%, ${(100 * s.ci95.high).toFixed(1)}%]  turns 1.5  invalid 33.3%  (test seeds)`
    )
  })

  it('task types: one line per type, none without types', () => {
    const typed = _.summarise('alf', [
      { won: true, turns: [], turnRewards: [], taskType: 'heat' },
      { won: false, turns: [], turnRewards: [], taskType: 'cool' }
    ])
    expect(_.formatTaskTypes([typed, _.summarise('tw', [])])).toBe('    heat: 100.0% of 1\n    cool: 0.0% of 1')
    expect(_.formatTaskTypes([_.summarise('tw', [])])).toBe('')
  })
})
