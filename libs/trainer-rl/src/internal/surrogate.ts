/**
 * The clipped surrogate shared by PPO and the clipped policy gradient (verl
 * `compute_policy_loss_vanilla`).
 */
import * as tf from '@tensorflow/tfjs'
import * as Aggregation from '../Aggregation.js'

export interface SurrogateInput {
  readonly logprobs: tf.Tensor
  readonly oldLogprobs: tf.Tensor
  readonly advantages: tf.Tensor
  readonly mask: tf.Tensor
}

export interface SurrogateOutput {
  readonly loss: tf.Scalar
  readonly clipFraction: tf.Scalar
  readonly approxKl: tf.Scalar
}

export const surrogate = (
  clipLow: number,
  clipHigh: number,
  dualClip: number | null,
  mode: Aggregation.Mode,
  input: SurrogateInput
): SurrogateOutput =>
  tf.tidy(() => {
    const { logprobs, oldLogprobs, advantages, mask } = input
    const logRatio = tf.sub(logprobs, oldLogprobs)
    const ratio = tf.exp(tf.clipByValue(logRatio, -20, 20))
    const negA = tf.neg(advantages)
    const l1 = tf.mul(negA, ratio)
    const l2 = tf.mul(negA, tf.clipByValue(ratio, 1 - clipLow, 1 + clipHigh))
    let perToken = tf.maximum(l1, l2)
    if (dualClip !== null) {
      const l3 = tf.mul(negA, dualClip)
      perToken = tf.where(tf.less(advantages, 0), tf.minimum(l3, perToken), perToken)
    }
    const loss = Aggregation.aggregate(mode)(perToken, mask)
    const clipFraction = Aggregation.maskedMean(tf.cast(tf.greater(l2, l1), 'float32'), mask)
    const approxKl = Aggregation.maskedMean(tf.neg(logRatio), mask)
    return { loss, clipFraction, approxKl }
  })
