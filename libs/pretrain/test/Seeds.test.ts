import { Rng } from '@mtrl/core'
import { Evaluate } from '@mtrl/eval'
import { Demonstrations } from '@mtrl/trainer-sft'
import * as fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Seeds.js'

describe('Seeds', () => {
  it('lies above every training seed and below every held-out seed', () => {
    // training seeds are drawn below 2^31; held-out seeds start at 3e9 (old range), 3.5e9, 4e9
    expect(_.range.first).toBe(2 ** 31)
    expect(_.range.end).toBeLessThanOrEqual(Math.min(3_000_000_000, ...Object.values(Evaluate.splitSeedBase)))
  })
  it('draws seeds in the range only', () => {
    fc.assert(fc.property(fc.integer(), (seed) => _.isPretrainSeed(_.draw(Rng.make(seed)))))
  })
  it('never draws a seed an SFT or RL stage trains on', () => {
    fc.assert(fc.property(fc.integer(), (seed) => !_.isPretrainSeed(Demonstrations.trainSeed(Rng.make(seed)))))
  })
  it('says which seeds are its own', () => {
    expect([2 ** 31 - 1, 2 ** 31, 2_999_999_999, 3e9, 3.5e9, 4e9, 2.5e9 + 0.5].map(_.isPretrainSeed)).toEqual([false, true, true, false, false, false, false])
  })
})
