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

/** Per-token terms of the clipped surrogate: the loss, whether the clip bit (0/1), and -log ratio. */
export interface SurrogateTokens {
  readonly perToken: tf.Tensor
  readonly clipped: tf.Tensor
  readonly negLogRatio: tf.Tensor
}

/** The clipped surrogate per token (no mask, no aggregation). The caller owns the tensors. */
export const surrogateTokens = (
  clipLow: number,
  clipHigh: number,
  dualClip: number | null,
  input: Omit<SurrogateInput, 'mask'>
): SurrogateTokens => {
  const [perToken, clipped, negLogRatio] = tf.tidy(() => {
    const { logprobs, oldLogprobs, advantages } = input
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
    return [perToken, tf.cast(tf.greater(l2, l1), 'float32'), tf.neg(logRatio)]
  })
  return { perToken: perToken!, clipped: clipped!, negLogRatio: negLogRatio! }
}

export const surrogate = (
  clipLow: number,
  clipHigh: number,
  dualClip: number | null,
  mode: Aggregation.Mode,
  input: SurrogateInput
): SurrogateOutput =>
  tf.tidy(() => {
    const { perToken, clipped, negLogRatio } = surrogateTokens(clipLow, clipHigh, dualClip, input)
    return {
      loss: Aggregation.aggregate(mode)(perToken, input.mask),
      clipFraction: Aggregation.maskedMean(clipped, input.mask),
      approxKl: Aggregation.maskedMean(negLogRatio, input.mask)
    }
  })
