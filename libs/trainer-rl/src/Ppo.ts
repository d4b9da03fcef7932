/**
 * PPO's clipped surrogate with dual clip (Schulman et al. 2017, https://arxiv.org/abs/1707.06347;
 * dual clip: Ye et al. 2020, https://arxiv.org/abs/1912.09729), as verl's
 * `compute_policy_loss_vanilla`. The policy loss of the paper's PPO runs, token level.
 *
 * ```
 * rho = exp(clamp(logp - logp_old, -20, 20))
 * L1 = -A rho ;  L2 = -A clip(rho, 1 - clipLow, 1 + clipHigh) ;  Lc = max(L1, L2)
 * L  = A < 0 ? min(-A c, Lc) : Lc           (c = dualClip > 1; null disables it)
 * loss = aggregate(L, mask)
 * clipFraction = masked mean of [L2 > L1] ;  approxKl = masked mean of (logp_old - logp)
 * ```
 *
 * @since 0.1.0
 */
import { Numbers } from '@mtrl/core'
import * as tf from '@tensorflow/tfjs'
import * as t from 'io-ts'
import * as Aggregation from './Aggregation.js'

/**
 * - `clipLow`, `clipHigh`: ratio clip range `[1 - clipLow, 1 + clipHigh]` (clip-higher when unequal);
 * - `dualClip`: the constant c (> 1) bounding the loss of negative advantages; `null` turns it off;
 * - `aggregation`: see {@link Aggregation}.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({
  clipLow: t.number,
  clipHigh: t.number,
  dualClip: t.union([Numbers.refine('a number > 1', (n) => Number.isFinite(n) && n > 1), t.null]),
  aggregation: Aggregation.Mode
})
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * verl's defaults: clip 0.2 both sides, dual clip 3, token-mean.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultOptions: Options = { clipLow: 0.2, clipHigh: 0.2, dualClip: 3, aggregation: 'token-mean' }

/**
 * The per-token tensors of the surrogate, all `[batch, time]` float32: `logprobs` (current
 * policy, differentiable), `oldLogprobs` (behaviour policy), `advantages`.
 *
 * @category models
 * @since 0.5.0
 */
export interface TokenInput {
  readonly logprobs: tf.Tensor
  readonly oldLogprobs: tf.Tensor
  readonly advantages: tf.Tensor
}

/**
 * Per token: the loss `L`, whether the ratio clip bound (`[L2 > L1]`, 0/1) and `-log rho`.
 *
 * @category models
 * @since 0.5.0
 */
export interface Tokens {
  readonly loss: tf.Tensor
  readonly clipped: tf.Tensor
  readonly negLogRatio: tf.Tensor
}

/**
 * The surrogate per token, before aggregation: what training computes on every shard (and
 * weighs with `Aggregation.weights`). The caller owns the three tensors.
 *
 * @category losses
 * @since 0.5.0
 */
export const perToken =
  (options: Pick<Options, 'clipLow' | 'clipHigh' | 'dualClip'>) =>
  (input: TokenInput): Tokens => {
    const [loss, clipped, negLogRatio] = tf.tidy(() => {
      const { logprobs, oldLogprobs, advantages } = input
      const logRatio = tf.sub(logprobs, oldLogprobs)
      const ratio = tf.exp(tf.clipByValue(logRatio, -20, 20))
      const negA = tf.neg(advantages)
      const l1 = tf.mul(negA, ratio)
      const l2 = tf.mul(negA, tf.clipByValue(ratio, 1 - options.clipLow, 1 + options.clipHigh))
      const clippedLoss = tf.maximum(l1, l2)
      const dual =
        options.dualClip === null ? clippedLoss : tf.where(tf.less(advantages, 0), tf.minimum(tf.mul(negA, options.dualClip), clippedLoss), clippedLoss)
      return [dual, tf.cast(tf.greater(l2, l1), 'float32'), tf.neg(logRatio)]
    })
    return { loss: loss!, clipped: clipped!, negLogRatio: negLogRatio! }
  }

/**
 * {@link TokenInput} and the `mask` (1 on action tokens) the loss aggregates over.
 *
 * @category models
 * @since 0.1.0
 */
export interface Input extends TokenInput {
  readonly mask: tf.Tensor
}

/**
 * Scalars: `loss` (differentiable), `clipFraction`, `approxKl`. The caller owns them.
 *
 * @category models
 * @since 0.1.0
 */
export interface Output {
  readonly loss: tf.Scalar
  readonly clipFraction: tf.Scalar
  readonly approxKl: tf.Scalar
}

/**
 * The PPO policy loss of a whole batch: {@link perToken} aggregated with `options.aggregation`
 * (`Aggregation.aggregate`, the weights training uses); `clipFraction` and `approxKl` are token
 * means. Never disposes its inputs.
 *
 * @example
 * import * as tf from '@tensorflow/tfjs'
 * import { Ppo } from '@mtrl/trainer-rl'
 * const z = tf.zeros([1, 2])
 * const { loss } = Ppo.loss(Ppo.defaultOptions)({ logprobs: z, oldLogprobs: z, advantages: tf.ones([1, 2]), mask: tf.ones([1, 2]) })
 * // loss = -1
 * @category losses
 * @since 0.1.0
 */
export const loss =
  (options: Options) =>
  (input: Input): Output => {
    const tokens = perToken(options)(input)
    try {
      return {
        loss: Aggregation.aggregate(options.aggregation)(tokens.loss, input.mask),
        clipFraction: Aggregation.aggregate('token-mean')(tokens.clipped, input.mask),
        approxKl: Aggregation.aggregate('token-mean')(tokens.negLogRatio, input.mask)
      }
    } finally {
      tf.dispose([tokens.loss, tokens.clipped, tokens.negLogRatio])
    }
  }
