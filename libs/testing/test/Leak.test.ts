import { Trajectory } from '@mtrl/core'
import * as tf from '@tensorflow/tfjs'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { Arbitraries, expectNoLeak, TestBackend } from '../src/index.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

describe('expectNoLeak', () => {
  it('passes when tensors are disposed', async () => {
    await expectNoLeak(() => tf.tidy(() => tf.ones([3]).add(1)).dispose())
  })

  it('fails when a tensor is left alive', async () => {
    let kept: tf.Tensor | undefined
    await expect(expectNoLeak(() => (kept = tf.ones([3])))).rejects.toThrow(/tensor leak: 1/)
    kept?.dispose()
  })
})

describe('Arbitraries.trajectory', () => {
  it('produces valid trajectories', () => {
    fc.assert(fc.property(Arbitraries.trajectory(), (t) => E.isRight(Trajectory.validate(t))))
  })
})

describe('a training step on wasm', () => {
  it('trains a matMul with a gather-free embedding gradient', async () => {
    await TestBackend.use('wasm')
    expect(tf.getBackend()).toBe('wasm')
    await expectNoLeak(() => {
      const vocab = 16
      // tf.variable(x) keeps x alive as a separate tensor: dispose the initial value.
      const owned = (init: tf.Tensor): tf.Variable => {
        const v = tf.variable(init)
        init.dispose()
        return v
      }
      const embedding = owned(tf.randomNormal([vocab, 8], 0, 0.1, 'float32', 1))
      const head = owned(tf.randomNormal([8, vocab], 0, 0.1, 'float32', 2))
      const ids = tf.tensor1d([1, 2, 3, 4, 5, 6], 'int32')
      const targets = tf.tensor1d([2, 3, 4, 5, 6, 7], 'int32')
      const optimizer = tf.train.adam(0.05)
      const lossOf = (): tf.Scalar =>
        tf.tidy(() => {
          const x = tf.matMul(tf.oneHot(ids, vocab).toFloat(), embedding)
          const logits = tf.matMul(x, head)
          return tf.losses.softmaxCrossEntropy(tf.oneHot(targets, vocab), logits) as tf.Scalar
        })
      const first = lossOf()
      const initial = first.dataSync()[0]!
      first.dispose()
      for (let i = 0; i < 30; i++) optimizer.minimize(lossOf, false, [embedding, head])
      const last = lossOf()
      const final = last.dataSync()[0]!
      last.dispose()
      expect(final).toBeLessThan(initial * 0.5)
      optimizer.dispose()
      tf.dispose([embedding, head, ids, targets])
    })
    await TestBackend.use('cpu')
  })
})
