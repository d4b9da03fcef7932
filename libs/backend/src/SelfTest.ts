/**
 * A self-test of the active backend: a few training steps of a tiny next-token model (one-hot
 * embedding, so the gradient needs no gather, which the wasm backend lacks), the quickest proof
 * that the engine, the backend and autodiff work here. `mtrl smoke` runs it.
 *
 * @since 0.1.0
 */
import * as tf from '@tensorflow/tfjs'

/**
 * What a self-test saw: the backend, the steps taken, their wall time, and the loss before and
 * after (it passes when the loss went down).
 *
 * @category models
 * @since 0.1.0
 */
export interface Result {
  readonly backend: string
  readonly steps: number
  readonly ms: number
  readonly before: number
  readonly after: number
}

/**
 * Trains the tiny model for `steps` Adam steps (at least 1) on the active backend; leaves no
 * tensor behind.
 *
 * @example
 * import { Backend, SelfTest } from '@mtrl/backend'
 * await Backend.select('cpu')()
 * const result = SelfTest.run(5) // result.after < result.before
 *
 * @category destructors
 * @since 0.1.0
 */
export const run = (steps: number): Result => {
  const vocab = 32
  const owned = (init: tf.Tensor): tf.Variable => {
    const v = tf.variable(init)
    init.dispose()
    return v
  }
  const embedding = owned(tf.randomNormal([vocab, 16], 0, 0.1, 'float32', 1))
  const head = owned(tf.randomNormal([16, vocab], 0, 0.1, 'float32', 2))
  const ids = tf.tensor1d(
    Array.from({ length: 64 }, (_, i) => i % vocab),
    'int32'
  )
  const targets = tf.tensor1d(
    Array.from({ length: 64 }, (_, i) => (i + 1) % vocab),
    'int32'
  )
  const optimizer = tf.train.adam(0.05)
  const lossOf = (): tf.Scalar =>
    tf.tidy(() => tf.losses.softmaxCrossEntropy(tf.oneHot(targets, vocab), tf.matMul(tf.matMul(tf.oneHot(ids, vocab).toFloat(), embedding), head)) as tf.Scalar)
  const read = (s: tf.Scalar): number => {
    const v = s.dataSync()[0]!
    s.dispose()
    return v
  }
  const taken = Math.max(1, steps)
  const before = read(lossOf())
  const started = performance.now()
  for (let i = 0; i < taken; i++) optimizer.minimize(lossOf, false, [embedding, head])
  const ms = performance.now() - started
  const after = read(lossOf())
  optimizer.dispose()
  tf.dispose([embedding, head, ids, targets])
  return { backend: tf.getBackend(), steps: taken, ms, before, after }
}
