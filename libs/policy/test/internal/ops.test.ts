import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../../src/internal/ops.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const close = (a: tf.Tensor, b: tf.Tensor, tol = 1e-5): void => {
  expect(a.shape).toEqual(b.shape)
  expect(tf.tidy(() => tf.max(tf.abs(tf.sub(a, b))).dataSync()[0]!)).toBeLessThan(tol)
}

describe('ops: hand-written gradients equal autodiff of the plain formulas', () => {
  it('swiglu equals autodiff of g * sigmoid(g) * u', async () => {
    await expectNoLeak(() =>
      tf.tidy(() => {
        const g = tf.mul(tf.randomNormal([4, 6], 0, 1, 'float32', 6), 3)
        const u = tf.randomNormal([4, 6], 0, 1, 'float32', 7)
        const plain = (a: tf.Tensor, b: tf.Tensor): tf.Tensor => tf.mul(tf.mul(a, tf.sigmoid(a)), b)
        close(_.swiglu(g, u), plain(g, u))
        const loss =
          (f: (a: tf.Tensor, b: tf.Tensor) => tf.Tensor) =>
          (a: tf.Tensor, b: tf.Tensor): tf.Tensor =>
            tf.sum(tf.sin(f(a, b)))
        const [ga, gb] = tf.grads(loss(_.swiglu))([g, u])
        const [pa, pb] = tf.grads(loss(plain))([g, u])
        close(ga!, pa!)
        close(gb!, pb!)
      })
    )
  })

  it('pickLogSoftmax equals logSoftmax then pick, values and gradients', async () => {
    await expectNoLeak(() =>
      tf.tidy(() => {
        const logits = tf.mul(tf.randomNormal([6, 9], 0, 1, 'float32', 5), 8) as tf.Tensor2D
        const targets = tf.tensor1d([0, 8, 3, 3, 1, 5], 'int32')
        const plain = (t: tf.Tensor): tf.Tensor => _.pick(tf.logSoftmax(t) as tf.Tensor2D, targets)
        close(_.pickLogSoftmax(logits, targets), plain(logits))
        const weights = tf.tensor1d([1, -2, 0.5, 3, 0, 1])
        const loss =
          (f: (t: tf.Tensor) => tf.Tensor) =>
          (t: tf.Tensor): tf.Tensor =>
            tf.sum(tf.mul(f(t), weights))
        close(tf.grad(loss((t) => _.pickLogSoftmax(t as tf.Tensor2D, targets)))(logits), tf.grad(loss(plain))(logits))
      })
    )
  })

  it('mm, rotateHalf and pick', async () => {
    await expectNoLeak(() =>
      tf.tidy(() => {
        const a = tf.randomNormal([4, 6], 0, 1, 'float32', 1)
        const b = tf.randomNormal([6, 3], 0, 1, 'float32', 2)
        const [ga, gb] = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.sin(_.mm(x, y))))([a, b])
        const [pa, pb] = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.sin(tf.matMul(x as tf.Tensor2D, y as tf.Tensor2D))))([a, b])
        close(ga!, pa!)
        close(gb!, pb!)
        const x = tf.randomNormal([2, 3, 8], 0, 1, 'float32', 3)
        const half = (t: tf.Tensor): tf.Tensor => tf.concat([tf.neg(tf.slice(t, [0, 0, 4], [-1, -1, 4])), tf.slice(t, [0, 0, 0], [-1, -1, 4])], 2)
        close(_.rotateHalf(x), half(x))
        close(tf.grad((t: tf.Tensor) => tf.sum(tf.sin(_.rotateHalf(t))))(x), tf.grad((t: tf.Tensor) => tf.sum(tf.sin(half(t))))(x))
        const logits = tf.randomNormal([5, 7], 0, 1, 'float32', 4)
        const targets = tf.tensor1d([0, 6, 3, 3, 1], 'int32')
        close(_.pick(logits as tf.Tensor2D, targets), tf.sum(tf.mul(logits, tf.oneHot(targets, 7)), -1))
        close(
          tf.grad((t: tf.Tensor) => tf.sum(tf.exp(_.pick(t as tf.Tensor2D, targets))))(logits),
          tf.grad((t: tf.Tensor) => tf.sum(tf.exp(tf.sum(tf.mul(t, tf.oneHot(targets, 7)), -1))))(logits)
        )
      })
    )
  })

  it('mm on batches (3-D) equals tf.matMul, and a frozen operand gets no gradient (one product backward, not two)', async () => {
    await expectNoLeak(async () => {
      tf.tidy(() => {
        const a = tf.randomNormal([2, 4, 6], 0, 1, 'float32', 8)
        const b = tf.randomNormal([2, 6, 3], 0, 1, 'float32', 9)
        close(_.mm(a, b), tf.matMul(a as tf.Tensor3D, b as tf.Tensor3D))
        const [ga, gb] = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.sin(_.mm(x, y))))([a, b])
        const [pa, pb] = tf.grads((x: tf.Tensor, y: tf.Tensor) => tf.sum(tf.sin(tf.matMul(x as tf.Tensor3D, y as tf.Tensor3D))))([a, b])
        close(ga!, pa!)
        close(gb!, pb!)
      })
      expect(() => tf.tidy(() => _.mm(tf.zeros([2, 4, 6]), tf.zeros([3, 6, 3])))).toThrow(/batch dims/)
      const x = tf.randomNormal([4, 6], 0, 1, 'float32', 10) as tf.Tensor2D
      const frozen = tf.randomNormal([5, 6], 0, 1, 'float32', 11) as tf.Tensor2D // [out, in], not differentiated
      const products = async (f: () => tf.Tensor): Promise<number> => {
        const info = await tf.profile(() => tf.tidy(f))
        tf.dispose(info.result as tf.Tensor)
        return info.kernels.filter((k) => k.name === 'BatchMatMul' || k.name === 'MtrlMatMul').length
      }
      // forward 1 + dx 1; dW (of the frozen weight) is never made
      expect(await products(() => tf.grad((t: tf.Tensor) => tf.sum(_.linear(t as tf.Tensor2D, frozen)))(x))).toBe(2)
      expect(await products(() => tf.grads((t: tf.Tensor, w: tf.Tensor) => tf.sum(_.linear(t as tf.Tensor2D, w as tf.Tensor2D)))([x, frozen])[1]!)).toBe(3)
      ;[x, frozen].forEach((t) => t.dispose())
    })
  })
})
