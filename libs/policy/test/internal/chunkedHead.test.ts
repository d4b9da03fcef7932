import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../../src/internal/chunkedHead.js'
import { linear, pickLogSoftmax } from '../../src/internal/ops.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

/** The plain path: [N, vocab] logits, soft-cap, temperature, log-softmax, pick. */
const plain = (h: tf.Tensor2D, w: tf.Tensor2D, targets: tf.Tensor1D, temperature: number, softcap: number | undefined): tf.Tensor1D => {
  let z = linear(h, w)
  if (softcap !== undefined) z = tf.mul(tf.tanh(tf.div(z, softcap)), softcap)
  if (temperature !== 1) z = tf.div(z, temperature)
  return pickLogSoftmax(z, targets)
}

const maxDiff = (a: tf.Tensor, b: tf.Tensor): number => tf.tidy(() => tf.max(tf.abs(tf.sub(a, b))).dataSync()[0]!)

describe('chunkedHead', () => {
  for (const [temperature, softcap] of [
    [1, undefined],
    [0.7, 3]
  ] as const)
    it(`equals the plain head and log-softmax, values and gradients, for chunks that do not divide the rows (temperature ${temperature}, soft-cap ${softcap})`, async () => {
      await expectNoLeak(() =>
        tf.tidy(() => {
          const h = tf.randomNormal([11, 8], 0, 1, 'float32', 1) as tf.Tensor2D
          const w = tf.randomNormal([37, 8], 0, 1, 'float32', 2) as tf.Tensor2D
          const targets = tf.tensor1d([0, 5, 36, 2, 2, 9, 17, 30, 1, 4, 8], 'int32')
          const dy = tf.randomNormal([11], 0, 1, 'float32', 3)
          const loss = (f: (h: tf.Tensor2D, w: tf.Tensor2D) => tf.Tensor1D) => (a: tf.Tensor, b: tf.Tensor) =>
            tf.sum(tf.mul(f(a as tf.Tensor2D, b as tf.Tensor2D), dy))
          const chunked = (a: tf.Tensor2D, b: tf.Tensor2D) => _.chunkedLogprobs(a, b, targets, { temperature, softcap }, 4)
          const reference = (a: tf.Tensor2D, b: tf.Tensor2D) => plain(a, b, targets, temperature, softcap)
          expect(maxDiff(chunked(h, w), reference(h, w))).toBeLessThan(1e-5)
          const [dh, dw] = tf.grads(loss(chunked))([h, w])
          const [rh, rw] = tf.grads(loss(reference))([h, w])
          expect(maxDiff(dh!, rh!)).toBeLessThan(1e-5)
          expect(maxDiff(dw!, rw!)).toBeLessThan(1e-5)
        })
      )
    })

  it('computes the entropy too: values and gradients of log-probs and entropies equal the plain log-softmax', async () => {
    await expectNoLeak(() =>
      tf.tidy(() => {
        const h = tf.randomNormal([9, 8], 0, 1, 'float32', 4) as tf.Tensor2D
        const w = tf.randomNormal([23, 8], 0, 1, 'float32', 5) as tf.Tensor2D
        const targets = tf.tensor1d([0, 5, 22, 2, 2, 9, 17, 3, 1], 'int32')
        const dy = tf.randomNormal([9, 2], 0, 1, 'float32', 6)
        const head = { temperature: 0.8, softcap: 4 }
        const reference = (a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D => {
          const logp = tf.logSoftmax(tf.div(tf.mul(tf.tanh(tf.div(linear(a, b), 4)), 4), 0.8))
          const picked = tf.sum(tf.mul(logp, tf.oneHot(targets, 23)), -1)
          return tf.stack([picked, tf.neg(tf.sum(tf.mul(tf.exp(logp), logp), -1))], 1) as tf.Tensor2D
        }
        const chunked = (a: tf.Tensor2D, b: tf.Tensor2D): tf.Tensor2D => _.chunkedScores(a, b, targets, head, true, 4)
        expect(maxDiff(chunked(h, w), reference(h, w))).toBeLessThan(1e-5)
        const loss = (f: (a: tf.Tensor2D, b: tf.Tensor2D) => tf.Tensor2D) => (a: tf.Tensor, b: tf.Tensor) =>
          tf.sum(tf.mul(f(a as tf.Tensor2D, b as tf.Tensor2D), dy))
        const [dh, dw] = tf.grads(loss(chunked))([h, w])
        const [rh, rw] = tf.grads(loss(reference))([h, w])
        expect(maxDiff(dh!, rh!)).toBeLessThan(1e-5)
        expect(maxDiff(dw!, rw!)).toBeLessThan(1e-5)
      })
    )
  })

  it('with a frozen weight (LoRA) gives the same values and hidden-state gradients, and no weight gradient', async () => {
    await expectNoLeak(() =>
      tf.tidy(() => {
        const h = tf.randomNormal([9, 8], 0, 1, 'float32', 7) as tf.Tensor2D
        const w = tf.randomNormal([23, 8], 0, 1, 'float32', 8) as tf.Tensor2D
        const targets = tf.tensor1d([0, 5, 22, 2, 2, 9, 17, 3, 1], 'int32')
        const dy = tf.randomNormal([9, 2], 0, 1, 'float32', 9)
        const head = { temperature: 0.8, softcap: 4 }
        const loss = (frozen: boolean) => (a: tf.Tensor) => tf.sum(tf.mul(_.chunkedScores(a as tf.Tensor2D, w, targets, head, true, 4, frozen), dy))
        expect(maxDiff(_.chunkedScores(h, w, targets, head, true, 4, true), _.chunkedScores(h, w, targets, head, true, 4))).toBe(0)
        expect(maxDiff(tf.grad(loss(true))(h), tf.grad(loss(false))(h))).toBeLessThan(1e-6)
        // the frozen weight is no input of the op: a gradient in it is zero (none flows), where the trained one has one
        const inW = (frozen: boolean) =>
          tf.grad((b: tf.Tensor) => tf.sum(tf.mul(_.chunkedScores(h, frozen ? w : (b as tf.Tensor2D), targets, head, true, 4, frozen), dy)))
        expect(tf.tidy(() => tf.max(tf.abs(inW(false)(w))).dataSync()[0]!)).toBeGreaterThan(1e-3)
      })
    )
  })

  for (const [temperature, softcap] of [
    [1, undefined],
    [0.7, 3]
  ] as const)
    it(`with a frozen weight, takes the hidden-state gradient of the log-probs in the forward pass: equal to the plain path's (temperature ${temperature}, soft-cap ${softcap})`, async () => {
      await expectNoLeak(() =>
        tf.tidy(() => {
          const h = tf.randomNormal([9, 8], 0, 1, 'float32', 11) as tf.Tensor2D
          const w = tf.randomNormal([23, 8], 0, 1, 'float32', 12) as tf.Tensor2D
          const targets = tf.tensor1d([3, 5, 22, 0, 2, 9, 17, 3, 14], 'int32')
          const dy = tf.randomNormal([9], 0, 1, 'float32', 13)
          const head = { temperature, softcap }
          const frozen = (a: tf.Tensor) =>
            tf.sum(tf.mul(tf.reshape(tf.slice(_.chunkedScores(a as tf.Tensor2D, w, targets, head, false, 4, true), [0, 0], [-1, 1]), [-1]), dy))
          const reference = (a: tf.Tensor) => tf.sum(tf.mul(plain(a as tf.Tensor2D, w, targets, temperature, softcap), dy))
          expect(maxDiff(tf.grad(frozen)(h), tf.grad(reference)(h))).toBeLessThan(1e-5)
        })
      )
    })

  it('with a frozen weight under a gradient tape, multiplies by the head weight twice a chunk in the forward pass and not at all in the backward pass', async () => {
    const h = tf.randomNormal([9, 8], 0, 1, 'float32', 14) as tf.Tensor2D
    const w = tf.randomNormal([23, 8], 0, 1, 'float32', 15) as tf.Tensor2D
    const targets = tf.tensor1d([3, 5, 22, 0, 2, 9, 17, 3, 14], 'int32')
    const headProducts = async (frozen: boolean): Promise<number> => {
      const info = await tf.profile(() => {
        const g = tf.grad((a: tf.Tensor) => tf.sum(_.chunkedScores(a as tf.Tensor2D, w, targets, { temperature: 1, softcap: undefined }, true, 4, frozen)))(h)
        g.dispose()
      })
      // a product (tfjs's or mtrl's own cpu kernel) with the [vocab, d] weight or a [rows, vocab] operand
      return info.kernels.filter((k) => /BatchMatMul|MtrlMatMul/.test(k.name) && k.inputShapes.some((s) => s.includes(23))).length
    }
    // three chunks of 4, 4 and 1 rows: logits and Jacobian rows each (the trained weight: logits, then logits, dh and dW again)
    expect(await headProducts(true)).toBe(6)
    expect(await headProducts(false)).toBe(12)
    tf.dispose([h, w, targets])
  })

  it("with a frozen weight and the entropy's gradient left out, takes the Jacobian rows of the log-probs only", async () => {
    const h = tf.randomNormal([9, 8], 0, 1, 'float32', 16) as tf.Tensor2D
    const w = tf.randomNormal([23, 8], 0, 1, 'float32', 17) as tf.Tensor2D
    const targets = tf.tensor1d([3, 5, 22, 0, 2, 9, 17, 3, 14], 'int32')
    const jacobianRows = async (entropyGradient: boolean): Promise<number[]> => {
      const info = await tf.profile(() => {
        const g = tf.grad((a: tf.Tensor) =>
          tf.sum(
            tf.slice(_.chunkedScores(a as tf.Tensor2D, w, targets, { temperature: 1, softcap: undefined }, true, 4, true, entropyGradient), [0, 0], [-1, 1])
          )
        )(h)
        g.dispose()
      })
      // the products of a [rows, vocab] gradient with the [vocab, d] weight: their rows
      return info.kernels.filter((k) => /BatchMatMul|MtrlMatMul/.test(k.name) && k.inputShapes[0]?.[1] === 23).map((k) => k.inputShapes[0]![0]!)
    }
    expect(await jacobianRows(true)).toEqual([8, 8, 2])
    expect(await jacobianRows(false)).toEqual([4, 4, 1])
    tf.dispose([h, w, targets])
  })

  it('sizes a chunk to about 16M logits, at least one row', () => {
    expect(_.chunkRows(151936)).toBe(110)
    expect(_.chunkRows(2 ** 25)).toBe(1)
  })
})
