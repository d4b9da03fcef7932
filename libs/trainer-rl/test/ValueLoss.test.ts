import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/ValueLoss.js'

beforeAll(() => TestBackend.use('cpu'))

describe('ValueLoss', () => {
  it('is half the squared error when the value stays inside the clip range', async () => {
    await expectNoLeak(() => {
      const input = { values: tf.tensor2d([[1, 2]]), oldValues: tf.tensor2d([[1.1, 2]]), returns: tf.tensor2d([[0, 9]]), mask: tf.tensor2d([[1, 0]]) }
      const out = _.loss(_.defaultOptions)(input)
      expect(out.loss.dataSync()[0]).toBeCloseTo(0.5)
      tf.dispose([out.loss, out.clipFraction, ...Object.values(input)])
    })
  })
  it('takes the clipped error when it is larger (pessimistic), and counts it', async () => {
    await expectNoLeak(() => {
      // V moved from 0 to 2 towards R = 3: clipped V = 0.5, error 2.5^2 > 1^2
      const input = { values: tf.tensor2d([[2]]), oldValues: tf.tensor2d([[0]]), returns: tf.tensor2d([[3]]), mask: tf.tensor2d([[1]]) }
      const out = _.loss(_.defaultOptions)(input)
      expect(out.loss.dataSync()[0]).toBeCloseTo(0.5 * 6.25)
      expect(out.clipFraction.dataSync()[0]).toBe(1)
      const plain = _.loss({ ..._.defaultOptions, clip: null })(input)
      expect(plain.loss.dataSync()[0]).toBeCloseTo(0.5)
      tf.dispose([out.loss, out.clipFraction, plain.loss, plain.clipFraction, ...Object.values(input)])
    })
  })
})
