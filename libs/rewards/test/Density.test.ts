import { Arbitraries } from '@mtrl/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Dense from '../src/Dense.js'
import * as _ from '../src/Density.js'
import * as Outcome from '../src/Outcome.js'
import { episode, total } from './fixtures.js'

const fraction = fc.double({ min: 0, max: 1, noNaN: true })

describe('Density', () => {
  it('keeps evenly spread events, floor(n * fraction) of them', () => {
    const kept = (f: number, n: number): number[] => Array.from({ length: n }, (_x, j) => j).filter((j) => _.keeps(f, j))
    expect(kept(0.5, 6)).toEqual([1, 3, 5])
    expect(kept(1 / 3, 9)).toEqual([2, 5, 8])
    expect(kept(0, 5)).toEqual([])
    expect(kept(1, 5)).toEqual([0, 1, 2, 3, 4])
    fc.assert(fc.property(fraction, fc.integer({ min: 0, max: 200 }), (f, n) => kept(f, n).length === Math.floor(n * f)))
  })

  it('pays only the kept events: hand-worked example', () => {
    // won, maxScore 4, deltas [1, 1, 1, 1] -> d = 0.25 each, four events; fraction 0.5 keeps events 1 and 3
    // r = [0, 0.25, 0, 0.25], then the win tops the last turn up to a total of 1 -> [0, 0.25, 0, 0.75]
    const won = episode([{ reward: 1 }, { reward: 1 }, { reward: 1 }, { reward: 1 }], { won: true, maxScore: 4 })
    expect(_.density(0.5)(won)).toEqual([0, 0.25, 0, 0.75])
    // the same events in a loss (score 3 of 4, deltas [1, 1, 0, 1]: events at turns 0, 1, 3): keeps turn 1 only
    const lost = episode([{ reward: 1 }, { reward: 1 }, { reward: 0 }, { reward: 1 }], { won: false, maxScore: 4 })
    expect(_.density(0.5)(lost)).toEqual([0, 0.25, 0, 0])
  })

  it('density 0 is the outcome reward and density 1 the dense reward', () => {
    fc.assert(
      fc.property(Arbitraries.trajectory(), (trajectory) => {
        expect(_.density(0)(trajectory)).toEqual(Outcome.outcome(trajectory))
        expect(_.density(1)(trajectory)).toEqual(Dense.dense(trajectory))
      })
    )
  })

  it('at any density a win sums to 1 and a loss never to more', () => {
    fc.assert(
      fc.property(Arbitraries.trajectory(), fraction, (trajectory, f) => {
        const rewards = _.density(f)(trajectory)
        expect(rewards.length).toBe(trajectory.turns.length)
        if (trajectory.won) expect(total(rewards)).toBeCloseTo(1, 10)
        else expect(total(rewards)).toBeLessThanOrEqual(1 + 1e-12)
      })
    )
  })

  it('rejects a fraction outside [0, 1]', () => {
    expect(() => _.density(1.5)).toThrow(RangeError)
    expect(() => _.density(Number.NaN)).toThrow(RangeError)
  })
})
