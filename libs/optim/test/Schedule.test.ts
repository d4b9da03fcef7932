import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Schedule.js'

describe('Schedule', () => {
  const options: _.Options = { peak: 1, warmupSteps: 10, totalSteps: 110, minRatio: 0.1 }
  it('warms up linearly to the peak', () => {
    expect(_.learningRate(options)(0)).toBeCloseTo(0.1)
    expect(_.learningRate(options)(9)).toBeCloseTo(1)
  })
  it('decays by a cosine to the floor at the last step and stays there', () => {
    expect(_.learningRate(options)(10)).toBeCloseTo(1)
    expect(_.learningRate(options)(60)).toBeCloseTo(0.55)
    expect(_.learningRate(options)(110)).toBeCloseTo(0.1)
    expect(_.learningRate(options)(500)).toBeCloseTo(0.1)
  })
  it('never exceeds the peak nor falls below the floor after warm-up, and never increases after it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 300 }), (step) => {
        const lr = _.learningRate(options)(step)
        expect(lr).toBeLessThanOrEqual(1 + 1e-12)
        expect(lr).toBeGreaterThanOrEqual(0.1 - 1e-12)
        expect(_.learningRate(options)(step + 1)).toBeLessThanOrEqual(lr + 1e-12)
      })
    )
  })
  it('a constant schedule is constant', () => {
    expect([0, 5, 100].map(_.learningRate(_.constant(0.3)))).toEqual([0.3, 0.3, 0.3])
  })
})
