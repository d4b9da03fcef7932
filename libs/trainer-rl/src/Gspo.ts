/**
 * GSPO, Group Sequence Policy Optimization (Zheng et al. 2025, https://arxiv.org/abs/2507.18071,
 * eqs. 5-7 and 10-11; verl's `compute_policy_loss_gspo`): PPO's clipped objective on the
 * sequence's importance ratio, the geometric mean of its tokens' ratios, instead of each token's.
 * A sequence here is a row of the batch: every action token of an episode, over all its turns.
 *
 * ```
 * s_i   = exp((1 / |y_i|) sum_t m_t (logp_t - logp_old_t))        (|y_i| = sum_t m_t; log clamped to [-20, 20])
 * s_i,t = sg[s_i] pi(y_i,t) / sg[pi(y_i,t)]                         (value s_i; gradient s_i grad log pi(y_i,t))
 * L_i,t = max(-A_i,t s_i,t, -A_i,t clip(s_i,t, 1 - clipLow, 1 + clipHigh))
 * ```
 *
 * This is the paper's GSPO-token form (eq. 13): with one advantage per sequence (GRPO's), its
 * value and gradient are GSPO's, and averaged per sequence then over the group
 * (`seq-mean-token-mean`, the `gspo` algorithm's aggregation) it is eq. 5's
 * `(1/G) sum_i min(s_i A_i, clip(s_i) A_i)`. The paper's clip range is tiny because the ratio is
 * a per-token geometric mean: 3e-4 left, 4e-4 right (section 5.1).
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
 * `clipLow`, `clipHigh`: the sequence ratio's clip range `[1 - clipLow, 1 + clipHigh]`.
 *
 * @category codecs
 * @since 0.7.0
 */
export const Options = t.type({ clipLow: Numbers.NonNegative, clipHigh: Numbers.NonNegative })
/** @category models @since 0.7.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * The paper's clip range: 3e-4 left, 4e-4 right.
 *
 * @category constructors
 * @since 0.7.0
 */
export const defaultOptions: Options = { clipLow: 3e-4, clipHigh: 4e-4 }

/**
 * GSPO per token (see the module comment): `loss`, `clipped` (`[L2 > L1]`, the same for every
 * token of a row) and the token's `-log rho`. Reads `input.mask` for each row's length. Runs in
 * `tf.tidy`; the caller owns the three tensors.
 *
 * @category losses
 * @since 0.7.0
 */
export const perToken =
  (options: Options) =>
  (input: PolicyLoss.TokenInput): PolicyLoss.Tokens => {
    const [loss, clipped, negLogRatio] = tf.tidy(() => {
      const { logprobs, oldLogprobs, advantages, mask } = input
      const logRatio = tf.sub(logprobs, oldLogprobs)
      const lengths = tf.maximum(tf.sum(mask, 1, true), 1)
      const sequenceLogRatio = tf.clipByValue(tf.div(tf.sum(tf.mul(logRatio, mask), 1, true), lengths), -20, 20)
      // value exp(sequenceLogRatio) per row; gradient s_i per token's log-prob
      const ratio = tf.mul(tf.exp(detach(sequenceLogRatio)), tf.exp(tf.sub(logprobs, detach(logprobs))))
      const negA = tf.neg(advantages)
      const l1 = tf.mul(negA, ratio)
      const l2 = tf.mul(negA, tf.clipByValue(ratio, 1 - options.clipLow, 1 + options.clipHigh))
      return [tf.maximum(l1, l2), tf.cast(tf.greater(l2, l1), 'float32'), tf.neg(logRatio)]
    })
    return { loss: loss!, clipped: clipped!, negLogRatio: negLogRatio! }
  }

/**
 * The GSPO loss of a whole batch ({@link perToken}, aggregated with `aggregation`; the paper's
 * is `seq-mean-token-mean`). The caller owns the scalars.
 *
 * @category losses
 * @since 0.7.0
 */
export const loss = (options: Options, aggregation: Aggregation.Mode = 'seq-mean-token-mean'): ((input: PolicyLoss.TokenInput) => PolicyLoss.Output) =>
  batchLoss(perToken(options), aggregation)
