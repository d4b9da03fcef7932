import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Optimizer.js'

beforeAll(() => TestBackend.use('cpu'))

const variable = (values: number[]): tf.Variable => {
  const init = tf.tensor1d(values)
  const v = tf.variable(init)
  init.dispose()
  return v
}

describe('Optimizer', () => {
  it('accumulates gradients: the sum over items equals the gradient of the summed loss, with losses and aux summed, leaving no tensor', async () => {
    const w = variable([0.5, -1, 2])
    const items = [tf.tensor1d([1, 2, 3]), tf.tensor1d([-2, 0.5, 1]), tf.tensor1d([0, 1, -1])]
    // a non-linear loss per item: sum(tanh(w * x)^2)
    const lossOf = (x: tf.Tensor1D) => tf.sum(tf.square(tf.tanh(tf.mul(w, x)))) as tf.Scalar
    const whole = _.gradients([w], () => ({ loss: tf.addN(items.map((x) => lossOf(x as tf.Tensor1D))) as tf.Scalar }))
    const summed = await expectNoLeak(() => {
      const r = _.accumulatedGradients([w], items, (x) => ({ loss: lossOf(x as tf.Tensor1D), aux: { one: tf.scalar(1) } }))
      const values = Array.from(r.grads[0]!.dataSync())
      tf.dispose(r.grads)
      return { values, loss: r.loss, aux: r.aux }
    })
    const expected = Array.from(whole.grads[0]!.dataSync())
    summed.values.forEach((g, i) => expect(g).toBeCloseTo(expected[i]!, 5))
    expect(summed.loss).toBeCloseTo(whole.loss, 5)
    expect(summed.aux).toEqual({ one: 3 })
    // one item: exactly gradients()
    const single = _.accumulatedGradients([w], [items[0]!], (x) => ({ loss: lossOf(x as tf.Tensor1D) }))
    const direct = _.gradients([w], () => ({ loss: lossOf(items[0] as tf.Tensor1D) }))
    expect(Array.from(single.grads[0]!.dataSync())).toEqual(Array.from(direct.grads[0]!.dataSync()))
    expect(() => _.accumulatedGradients([w], [], () => ({ loss: tf.scalar(0) }))).toThrow(/no item/)
    tf.dispose([...whole.grads, ...single.grads, ...direct.grads, ...items, w])
  })

  it('takes Adam steps: the first moves every weight by lr against the gradient sign', async () => {
    const w = variable([1, -2])
    await expectNoLeak(() => {
      const optimizer = _.make([w])
      const result = _.step(optimizer, { learningRate: 0.1, maxNorm: Infinity }, () => ({
        loss: tf.sum(tf.square(w)) as tf.Scalar,
        aux: { half: tf.scalar(0.5) }
      }))
      expect(result.loss).toBeCloseTo(5)
      expect(result.gradNorm).toBeCloseTo(Math.sqrt(4 + 16))
      expect(result.aux['half']).toBe(0.5)
      expect(Array.from(w.dataSync()).map((x) => +x.toFixed(5))).toEqual([0.9, -1.9])
      optimizer.dispose()
    })
    w.dispose()
  })

  it('clips the global gradient norm (the step direction is unchanged, the first Adam step is scale-free)', async () => {
    const w = variable([3, 4])
    await expectNoLeak(() => {
      const optimizer = _.make([w])
      const result = _.step(optimizer, { learningRate: 0.1, maxNorm: 1 }, () => ({ loss: tf.sum(tf.mul(w, tf.tensor1d([3, 4]))) as tf.Scalar }))
      expect(result.gradNorm).toBeCloseTo(5)
      const state = _.state(optimizer)
      expect(Array.from(state.m[0]!).map((x) => +x.toFixed(5))).toEqual([0.06, 0.08])
      optimizer.dispose()
    })
    w.dispose()
  })

  it('continues bit for bit after its state is saved and restored into a fresh optimizer', async () => {
    const run = (restoreAfter: number | undefined): number[] => {
      const w = variable([0.3, -0.7, 1.1])
      let optimizer = _.make([w])
      const loss = () => ({ loss: tf.sum(tf.pow(tf.sub(w, 0.5), 4)) as tf.Scalar })
      for (let i = 0; i < 6; i++) {
        if (i === restoreAfter) {
          const saved = _.state(optimizer)
          optimizer.dispose()
          optimizer = _.make([w])
          _.restore(optimizer, saved)
        }
        _.step(optimizer, { learningRate: 0.05, maxNorm: Infinity }, loss)
      }
      const out = Array.from(w.dataSync())
      optimizer.dispose()
      w.dispose()
      return out
    }
    await expectNoLeak(() => expect(run(3)).toEqual(run(undefined)))
  })
})
