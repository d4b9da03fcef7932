/**
 * The critic's clipped value loss (verl `compute_value_loss`; TRL PPO is the same), for PPO.
 *
 * ```
 * Vc = clip(V, V_old - clip, V_old + clip)
 * loss = 0.5 * aggregate(max((V - R)^2, (Vc - R)^2), mask)      (clip = null: 0.5 (V - R)^2)
 * clipFraction = masked mean of [(Vc - R)^2 > (V - R)^2]
 * ```
 *
 * @since 0.1.0
 */
import * as tf from '@tensorflow/tfjs'
import * as t from 'io-ts'
import * as Aggregation from './Aggregation.js'

/**
 * - `clip`: how far V may move from V_old before the clipped term takes over; `null` disables it;
 * - `aggregation`: see {@link Aggregation}.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({ clip: t.union([t.number, t.null]), aggregation: Aggregation.Mode })
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/** verl's defaults: clip 0.5, token-mean. @category constructors @since 0.1.0 */
export const defaultOptions: Options = { clip: 0.5, aggregation: 'token-mean' }

/**
 * All `[batch, time]` float32: `values` (differentiable), `oldValues` (at rollout time),
 * `returns` (targets), `mask` (1 on action tokens).
 *
 * @category models
 * @since 0.1.0
 */
export interface Input {
  readonly values: tf.Tensor
  readonly oldValues: tf.Tensor
  readonly returns: tf.Tensor
  readonly mask: tf.Tensor
}

/** @category models @since 0.1.0 */
export interface Output {
  readonly loss: tf.Scalar
  readonly clipFraction: tf.Scalar
}

/**
 * The clipped value loss per token, `0.5 max((V - R)^2, (V_old + clip(V - V_old, -c, c) - R)^2)`
 * (no mask, no aggregation), and whether the clipped term was the larger (0/1). The caller owns
 * the tensors.
 *
 * @category combinators
 * @since 0.2.0
 */
export const perToken =
  (options: Pick<Options, 'clip'>) =>
  (input: Omit<Input, 'mask'>): { readonly loss: tf.Tensor; readonly clipped: tf.Tensor } => {
    const [loss, clipped] = tf.tidy(() => {
      const { values, oldValues, returns } = input
      const unclipped = tf.square(tf.sub(values, returns))
      if (options.clip === null) return [tf.mul(0.5, unclipped), tf.zerosLike(unclipped)]
      const clippedValues = tf.add(oldValues, tf.clipByValue(tf.sub(values, oldValues), -options.clip, options.clip))
      const clippedLoss = tf.square(tf.sub(clippedValues, returns))
      return [tf.mul(0.5, tf.maximum(unclipped, clippedLoss)), tf.cast(tf.greater(clippedLoss, unclipped), 'float32')]
    })
    return { loss: loss!, clipped: clipped! }
  }

/**
 * The value loss. Runs in `tf.tidy`; never disposes its inputs; the caller owns the scalars.
 *
 * @category losses
 * @since 0.1.0
 */
export const loss =
  (options: Options) =>
  (input: Input): Output =>
    tf.tidy(() => {
      const tokens = perToken(options)(input)
      return {
        loss: Aggregation.aggregate(options.aggregation)(tokens.loss, input.mask),
        clipFraction: options.clip === null ? tf.scalar(0) : Aggregation.aggregate('token-mean')(tokens.clipped, input.mask)
      }
    })
