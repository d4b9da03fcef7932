import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Gae from '../src/Gae.js'
import * as _ from '../src/ReinforcePlusPlus.js'
import { closeTo, maskedMoments, tokenBatch, withFields } from './arbitraries.js'

describe('ReinforcePlusPlus', () => {
  it('discounts over action tokens only: hand-worked example', () => {
    // a0 obs a2, gamma 0.5: G(a2) = 1, G(a0) = 0 + 0.5*1 = 0.5 (the observation adds no decay)
    const out = _.estimate({ gamma: 0.5, whiten: false, baseline: 'none' })({
      batch: 1,
      time: 3,
      tokenRewards: Float32Array.of(0, 0, 1),
      actionMask: Float32Array.of(1, 0, 1)
    })
    expect(Array.from(out.advantages)).toEqual([0.5, 0, 1])
    expect(Array.from(out.returns)).toEqual([0.5, 0, 1])
  })

  it('subtracts the group mean at the last action token, discounted like the score', () => {
    // group g: R = [1, 0], mean 0.5; gamma 0.5
    // row 0: G = [0.5, 1], baseline on tokens = [0.25, 0.5] -> A = [0.25, 0.5]
    // row 1: G = [0, 0]                                       -> A = [-0.25, -0.5]
    const out = _.estimate({ gamma: 0.5, whiten: false, baseline: 'group' })({
      batch: 2,
      time: 2,
      tokenRewards: Float32Array.of(0, 1, 0, 0),
      actionMask: Float32Array.of(1, 1, 1, 1),
      groupIds: ['g', 'g']
    })
    expect(Array.from(out.advantages)).toEqual([0.25, 0.5, -0.25, -0.5])
    expect(Array.from(out.returns)).toEqual([0.5, 1, 0, 0])
  })

  it('without whitening or baseline, its returns are GAE with lambda 1 and no critic', () => {
    fc.assert(
      fc.property(tokenBatch(), fc.double({ min: 0, max: 1, noNaN: true }), (input, gamma) => {
        const out = _.estimate({ gamma, whiten: false, baseline: 'none' })(input)
        const gae = Gae.estimate({ gamma, lambda: 1, whiten: false })(withFields(input, { values: undefined, bootstrapValues: undefined }))
        return closeTo(out.advantages, gae.advantages, 1e-4) && closeTo(out.returns, gae.returns, 1e-4)
      })
    )
  })

  it('whitened advantages have mean 0 and sample std 1 over action tokens', () => {
    fc.assert(
      fc.property(tokenBatch(), fc.constantFrom<_.Baseline>('none', 'group'), (input, baseline) => {
        const raw = maskedMoments(_.estimate({ gamma: 0.95, whiten: false, baseline })(input).advantages, input.actionMask)
        fc.pre(raw.count >= 2 && raw.std > 1e-2)
        const { mean, std } = maskedMoments(_.estimate({ gamma: 0.95, whiten: true, baseline })(input).advantages, input.actionMask)
        expect(mean).toBeCloseTo(0, 4)
        expect(std).toBeCloseTo(1, 3)
      })
    )
  })

  it('needs groupIds only for the group baseline', () => {
    const input = { batch: 1, time: 1, tokenRewards: Float32Array.of(1), actionMask: Float32Array.of(1) }
    expect(() => _.estimate({ ..._.defaultOptions, baseline: 'none' })(input)).not.toThrow()
    expect(() => _.estimate({ ..._.defaultOptions, baseline: 'group' })(input)).toThrow(/groupIds is required/)
  })
})
