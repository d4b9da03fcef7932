import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/WeightAverage.js'

beforeAll(() => TestBackend.use('cpu'))

describe('WeightAverage', () => {
  it('its decay warms up to emaDecay', () => {
    expect(_.emaDecayAt(0.999, 0)).toBeCloseTo(0.1)
    expect(_.emaDecayAt(0.999, 90)).toBeCloseTo(0.91)
    expect(_.emaDecayAt(0.99, 1e6)).toBe(0.99)
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 0.9999, noNaN: true }),
        fc.nat({ max: 10_000 }),
        (d, n) => _.emaDecayAt(d, n) <= d && _.emaDecayAt(d, n) <= _.emaDecayAt(d, n + 1)
      )
    )
  })

  it('averages the way the formula says, restores from host arrays, and applies the average', async () => {
    await expectNoLeak(() => {
      const init = tf.tensor1d([1, 2])
      const w = tf.variable(init)
      init.dispose()
      const average = _.make([w])
      tf.tidy(() => w.assign(tf.tensor1d([3, 6])))
      _.update(average, [w], 0.75)
      expect(Array.from(_.toHost(average)[0]!)).toEqual([1.5, 3])
      const copy = _.make([w], _.toHost(average))
      expect(Array.from(copy.weights[0]!.dataSync())).toEqual([1.5, 3])
      _.apply(copy, [w])
      expect(Array.from(w.dataSync())).toEqual([1.5, 3])
      ;[average, copy].forEach((a) => a.dispose())
      w.dispose()
    })
  })
})
