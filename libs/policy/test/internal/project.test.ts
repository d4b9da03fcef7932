import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import { linear } from '../../src/internal/ops.js'
import { project, type WeightOf } from '../../src/internal/transformer.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

describe('transformer.project', () => {
  it('with an adapter gives the values and gradients of x W^T + s (x A^T) B^T written with plain ops, keeping three [N, out] tensors fewer for the backward pass', async () => {
    await expectNoLeak(async () => {
      const x = tf.randomNormal([6, 5], 0, 1, 'float32', 1) as tf.Tensor2D
      const base = tf.randomNormal([7, 5], 0, 1, 'float32', 2) as tf.Tensor2D
      const a = tf.randomNormal([3, 5], 0, 1, 'float32', 3) as tf.Tensor2D
      const b = tf.randomNormal([7, 3], 0, 1, 'float32', 4) as tf.Tensor2D
      const dy = tf.randomNormal([6, 7], 0, 1, 'float32', 5)
      const scale = 2.5
      const weights = (xa: tf.Tensor, aa: tf.Tensor, ba: tf.Tensor): WeightOf =>
        Object.assign(() => base, { adapter: () => ({ base, a: aa as tf.Tensor2D, b: ba as tf.Tensor2D, scale }) })
      const ours = (xa: tf.Tensor, aa: tf.Tensor, ba: tf.Tensor) => tf.sum(tf.mul(project(weights(xa, aa, ba), 'w', xa as tf.Tensor2D), dy))
      const plain = (xa: tf.Tensor, aa: tf.Tensor, ba: tf.Tensor) =>
        tf.sum(tf.mul(tf.add(linear(xa as tf.Tensor2D, base), tf.mul(linear(linear(xa as tf.Tensor2D, aa as tf.Tensor2D), ba as tf.Tensor2D), scale)), dy))
      const [g1, g2] = [tf.grads(ours)([x, a, b]), tf.grads(plain)([x, a, b])]
      g1.forEach((g, i) => expect(Array.from(g.dataSync())).toEqual(Array.from(g2[i]!.dataSync())))
      expect(tf.tidy(() => ours(x, a, b).dataSync()[0])).toBe(tf.tidy(() => plain(x, a, b).dataSync()[0]))
      // what the forward pass keeps for the backward pass (the engine's tape): three [6, 7] tensors fewer than the plain ops
      // (the products' outputs and the scaled low-rank one; the loss's own mul and sum keep theirs in both)
      const keptShapes = (f: typeof ours): number[][] => {
        const av = tf.variable(a)
        let shapes: number[][] = []
        const { value, grads } = tf.variableGrads(() => {
          const y = f(x, av, b) as tf.Scalar
          const tape = (tf.engine() as unknown as { state: { activeTape: Array<{ saved: tf.Tensor[] }> } }).state.activeTape
          shapes = tape.flatMap((node) => node.saved.map((t) => t.shape))
          return y
        }, [av])
        tf.dispose([value, av, ...Object.values(grads).filter((g): g is tf.Tensor => g !== null)])
        return shapes
      }
      const wide = (shapes: number[][]): number => shapes.filter((s) => s.join() === '6,7').length
      expect(wide(keptShapes(plain)) - wide(keptShapes(ours))).toBe(3)
      tf.dispose([...g1, ...g2, x, base, a, b, dy])
    })
  })
})
