import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../../src/internal/attention.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const close = (a: tf.Tensor, b: tf.Tensor, tol = 1e-5): void => {
  expect(a.shape).toEqual(b.shape)
  expect(tf.tidy(() => tf.max(tf.abs(tf.sub(a, b))).dataSync()[0]!)).toBeLessThan(tol)
}

describe('attention: hand-written gradients equal autodiff of the plain formulas', () => {
  for (const [name, attention] of [
    ['batched', _.causalAttention],
    ['by pair', _.causalAttentionByPair]
  ] as const)
    for (const T of [5, 70, 130])
      it(`causal attention, ${name} (T = ${T})`, async () => {
        await expectNoLeak(() =>
          tf.tidy(() => {
            const [q, k, v] = [1, 2, 3].map((seed) => tf.randomNormal([3, T, 4], 0, 1, 'float32', seed))
            const dy = tf.randomNormal([3, T, 4], 0, 1, 'float32', 4)
            const mask = _.causalMask(T)
            const plain = (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor): tf.Tensor => tf.matMul(tf.softmax(tf.add(tf.matMul(a, b, false, true), mask)), c)
            const custom = (a: tf.Tensor, b: tf.Tensor, c: tf.Tensor): tf.Tensor => attention(a as tf.Tensor3D, b as tf.Tensor3D, c as tf.Tensor3D)
            close(custom(q!, k!, v!), plain(q!, k!, v!))
            const g1 = tf.grads(custom)([q!, k!, v!], dy)
            const g2 = tf.grads(plain)([q!, k!, v!], dy)
            g1.forEach((g, i) => close(g, g2[i]!))
          })
        )
      })
})
