/**
 * CISPO, Clipped IS-weight Policy Optimization (MiniMax-M1, MiniMax 2025,
 * https://arxiv.org/abs/2506.13585, eq. 4; verl's `compute_policy_loss_cispo`): REINFORCE with
 * each token weighted by its importance ratio, clipped and held constant. Where PPO's clip drops
 * a token's gradient (its ratio out of range), CISPO keeps every token's gradient and bounds its
 * weight, so the rare tokens that fork a reasoning path still learn.
 *
 * ```
 * rho = exp(clamp(logp - logp_old, -20, 20))
 * w   = sg[clip(rho, 1 - clipLow, 1 + clipHigh)]          (clipLow null: no lower bound, the paper's)
 * L   = -w A logp                                          (gradient -w A grad log pi)
 * ```
 *
 * Aggregated as a token mean over the batch, `1 / sum_i |o_i|` (the paper's, the `cispo`
 * algorithm's). The loss's value is `-w A log pi`, not a surrogate near `-A`: its gradient is what
 * matters.
 *
 * @since 0.7.0
 */
import { Numbers } from '@mtrl/core'
import * as tf from '@tensorflow/tfjs'
import * as t from 'io-ts'
import type * as Aggregation from './Aggregation.js'
import { batchLoss } from './internal/batchLoss.js'
import { detach } from './internal/detach.js'
import type * as PolicyLoss from './PolicyLoss.js'

/**
 * The importance weight's bounds `[1 - clipLow, 1 + clipHigh]`: `clipLow` null leaves it
 * unbounded below (the paper sets its epsilon_low "to a large value").
 *
 * @category codecs
 * @since 0.7.0
 */
export const Options = t.type({ clipLow: t.union([Numbers.NonNegative, t.null]), clipHigh: Numbers.NonNegative })
/** @category models @since 0.7.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * No lower bound; upper bound 1.2 (verl's CISPO example: `clip_ratio_low=10`, `clip_ratio_high=0.2`).
 *
 * @category constructors
 * @since 0.7.0
 */
export const defaultOptions: Options = { clipLow: null, clipHigh: 0.2 }

/**
 * CISPO per token (see the module comment): `loss`, `clipped` (the weight was bounded, 0/1) and
 * `-log rho`. Runs in `tf.tidy`; the caller owns the three tensors.
 *
 * @category losses
 * @since 0.7.0
 */
export const perToken =
  (options: Options) =>
  (input: PolicyLoss.TokenInput): PolicyLoss.Tokens => {
    const [loss, clipped, negLogRatio] = tf.tidy(() => {
      const { logprobs, oldLogprobs, advantages } = input
      const logRatio = tf.sub(logprobs, oldLogprobs)
      const ratio = tf.exp(tf.clipByValue(detach(logRatio), -20, 20))
      const weight = options.clipLow === null ? tf.minimum(ratio, 1 + options.clipHigh) : tf.clipByValue(ratio, 1 - options.clipLow, 1 + options.clipHigh)
      const loss = tf.neg(tf.mul(tf.mul(weight, advantages), logprobs))
      return [loss, tf.cast(tf.notEqual(weight, ratio), 'float32'), tf.neg(logRatio)]
    })
    return { loss: loss!, clipped: clipped!, negLogRatio: negLogRatio! }
  }

/**
 * The CISPO loss of a whole batch ({@link perToken}, aggregated with `aggregation`; the paper's
 * is `token-mean`). The caller owns the scalars.
 *
 * @category losses
 * @since 0.7.0
 */
export const loss = (options: Options, aggregation: Aggregation.Mode = 'token-mean'): ((input: PolicyLoss.TokenInput) => PolicyLoss.Output) =>
  batchLoss(perToken(options), aggregation)
