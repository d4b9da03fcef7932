import { Arbitraries } from '@mtrl/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/TestPass.js'
import { episode } from './fixtures.js'

describe('TestPass', () => {
  it('pays the final pass fraction at the last turn', () => {
    // 7 of 10 tests pass at the end (scores 3 then 7 of maxScore 10)
    const partial = episode([{ reward: 3 }, { reward: 4 }], { won: false, maxScore: 10 })
    expect(_.testPassRatio(partial)).toEqual([0, 0.7])
    expect(_.binary(partial)).toEqual([0, 0])
    const all = episode([{ reward: 4 }, { reward: 6 }], { won: true, maxScore: 10 })
    expect(_.testPassRatio(all)).toEqual([0, 1])
    expect(_.binary(all)).toEqual([0, 1])
  })

  it('is 0 without a positive maximum score', () => {
    expect(_.testPassRatio(episode([{ reward: 3 }], { won: false, maxScore: 0 }))).toEqual([0])
  })

  it('binary never exceeds the ratio, and both stay in [0, 1]', () => {
    fc.assert(
      fc.property(Arbitraries.trajectory(), (trajectory) => {
        const ratio = _.testPassRatio(trajectory)
        const binary = _.binary(trajectory)
        ratio.forEach((r, k) => {
          expect(r).toBeGreaterThanOrEqual(0)
          expect(r).toBeLessThanOrEqual(1)
          expect(binary[k]).toBeLessThanOrEqual(r)
        })
      })
    )
  })
})
