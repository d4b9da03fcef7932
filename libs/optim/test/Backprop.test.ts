import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Backprop.js'

beforeAll(() => TestBackend.use('cpu'))

const seeded = (shape: number[], seed: number): tf.Variable => {
  const init = tf.randomNormal(shape, 0, 0.5, 'float32', seed)
  const v = tf.variable(init, true, `v${seed}_${Math.random()}`)
  init.dispose()
  return v
}

describe('Backprop.variableGrads', () => {
  const w1 = seeded([8, 8], 1)
  const w2 = seeded([8, 8], 2)
  const unused = seeded([3], 3)
  const frozen = tf.variable(tf.ones([8]), false, `frozen_${Math.random()}`)
  const x = tf.randomNormal([5, 8], 0, 1, 'float32', 4)
  afterAll(() => tf.dispose([w1, w2, unused, frozen, x]))

  /**
   * A loss with the cases a walk can get wrong: fan-out (h used three times), a weight used
   * twice, an op with several outputs of which one is unused (split), a custom gradient, a
   * gradient passed through unchanged (a float cast of a float), a frozen variable and a reshape.
   */
  const loss = (): tf.Scalar => {
    const h = tf.tanh(tf.matMul(tf.mul(x, frozen), w1))
    const [left] = tf.split(tf.matMul(h, w2), 2, 1)
    const square = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => {
      const [a, save] = args as [tf.Tensor, tf.GradSaveFunc]
      save([a])
      return { value: tf.square(a), gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => tf.mul(dy, tf.mul(saved[0]!, 2)) }
    }) as (a: tf.Tensor) => tf.Tensor
    const again = tf.matMul(tf.cast(h, 'float32'), w1)
    const y = tf.add(tf.sum(square(left!)), tf.sum(tf.mul(tf.reshape(again, [-1]), tf.reshape(h, [-1]))))
    return tf.add(y, tf.sum(tf.sigmoid(h))) as tf.Scalar
  }

  it('gives the engine gradients bit for bit, by name, none for an unreached or frozen variable, leaving no tensor', async () => {
    const engine = tf.variableGrads(loss, [w1, w2, unused])
    const expected = {
      value: Array.from(engine.value.dataSync()),
      w1: Array.from(engine.grads[w1.name]!.dataSync()),
      w2: Array.from(engine.grads[w2.name]!.dataSync())
    }
    tf.dispose([engine.value, ...Object.values(engine.grads).filter((g): g is tf.Tensor => g !== null)])
    const ours = await expectNoLeak(() => {
      const { value, grads } = _.variableGrads(loss, [w1, w2, unused, frozen])
      const out = {
        names: Object.keys(grads).sort(),
        value: Array.from(value.dataSync()),
        w1: Array.from(grads[w1.name]!.dataSync()),
        w2: Array.from(grads[w2.name]!.dataSync())
      }
      tf.dispose([value, ...Object.values(grads)])
      return out
    })
    expect(ours.names).toEqual([w1.name, w2.name].sort())
    expect(ours.value).toEqual(expected.value)
    expect(ours.w1).toEqual(expected.w1)
    expect(ours.w2).toEqual(expected.w2)
  })

  it('frees activations and gradients as it goes: after the first layer of a 24-layer chain far less memory is live than the engine keeps', () => {
    const layers = Array.from({ length: 24 }, (_, i) => seeded([64, 64], 10 + i))
    const input = tf.randomNormal([256, 64], 0, 1, 'float32', 5)
    let live = 0
    // the identity with a gradient that notes the live bytes: the backward pass reaches it last
    const probe = tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => ({
      value: tf.clone(args[0] as tf.Tensor),
      gradFunc: (dy: tf.Tensor) => {
        live = tf.memory().numBytes
        return tf.clone(dy)
      }
    })) as (a: tf.Tensor) => tf.Tensor
    // the probe follows the first layer (a node on no path from a variable is not walked)
    const chain = (): tf.Scalar =>
      tf.sum(layers.slice(1).reduce<tf.Tensor>((h, w) => tf.tanh(tf.matMul(h, w)), probe(tf.tanh(tf.matMul(input, layers[0]!))))) as tf.Scalar
    const base = tf.memory().numBytes
    const run = (grads: typeof _.variableGrads): number => {
      const out = grads(chain, layers)
      tf.dispose([out.value, ...Object.values(out.grads)])
      return live - base
    }
    const engine = run((f, vs) => tf.variableGrads(f, [...vs]) as ReturnType<typeof _.variableGrads>)
    const ours = run(_.variableGrads)
    // the engine holds 24 activations (and their pre-activations) and 24 x 2 gradients of [256, 64]; the walk about one layer's
    expect(engine).toBeGreaterThan(24 * 2 * 256 * 64 * 4)
    expect(ours).toBeLessThan(engine / 8)
    tf.dispose([...layers, input])
  })

  it('refuses what the engine refuses, naming it, leaving no tensor', async () => {
    await expectNoLeak(() => {
      expect(() => _.variableGrads(() => tf.sum(x) as tf.Scalar, [w1])).toThrow(/depends on none of the variables/)
      expect(() => _.variableGrads(() => tf.matMul(x, w1) as unknown as tf.Scalar, [w1])).toThrow(/scalar.*rank-2/)
      expect(() => _.variableGrads(loss, [frozen])).toThrow(/none of the 1 variables is trainable/)
    })
  })

  it('leaves higher-order gradients to the engine: a gradient of a gradient equals tf.variableGrads nested', () => {
    const second = (inner: typeof _.variableGrads): number[] => {
      const outer = tf.variableGrads(() => {
        const { value, grads } = inner(() => tf.sum(tf.pow(tf.mul(w1, 0.5), 3)) as tf.Scalar, [w1])
        value.dispose()
        return tf.sum(grads[w1.name]!) as tf.Scalar
      }, [w1])
      const out = Array.from(outer.grads[w1.name]!.dataSync())
      tf.dispose([outer.value, ...Object.values(outer.grads).filter((g): g is tf.Tensor => g !== null)])
      return out
    }
    expect(second(_.variableGrads)).toEqual(second((f, vs) => tf.variableGrads(f, [...vs]) as ReturnType<typeof _.variableGrads>))
  })
})
