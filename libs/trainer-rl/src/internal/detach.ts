/** A stop-gradient: TensorFlow.js has none (the `sg[x]` of GSPO's and CISPO's formulas). */
import * as tf from '@tensorflow/tfjs'

const detachGrad = (...args: Array<tf.Tensor | tf.GradSaveFunc>): { value: tf.Tensor; gradFunc: (dy: tf.Tensor) => tf.Tensor } => ({
  value: tf.clone(args[0] as tf.Tensor),
  gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy)
})

/** `x` forward, a zero gradient backward. */
export const detach = tf.customGrad(detachGrad) as unknown as <T extends tf.Tensor>(x: T) => T
