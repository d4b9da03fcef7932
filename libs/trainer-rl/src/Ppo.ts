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
import { batchLoss } from './internal/batchLoss.js'
import type * as PolicyLoss from './PolicyLoss.js'

/**
 * The options of the per-token loss (`PolicyLoss.registry.ppo`):
 * - `clipLow`, `clipHigh`: ratio clip range `[1 - clipLow, 1 + clipHigh]` (clip-higher when unequal);
 * - `dualClip`: the constant c (> 1) bounding the loss of negative advantages; `null` turns it off.
 *
 * @category codecs
 * @since 0.7.0
 */
export const TokenOptions = t.type({
  clipLow: Numbers.NonNegative,
  clipHigh: Numbers.NonNegative,
  dualClip: t.union([Numbers.refine('a number > 1', (n) => Number.isFinite(n) && n > 1), t.null])
})
/** @category models @since 0.7.0 */
export type TokenOptions = t.TypeOf<typeof TokenOptions>

/**
 * {@link TokenOptions} and the `aggregation` of the batch's loss (see {@link Aggregation}).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({ ...TokenOptions.props, aggregation: Aggregation.Mode })
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * verl's defaults: clip 0.2 both sides, dual clip 3.
 *
 * @category constructors
 * @since 0.7.0
 */
export const defaultTokenOptions: TokenOptions = { clipLow: 0.2, clipHigh: 0.2, dualClip: 3 }

/**
 * verl's defaults: clip 0.2 both sides, dual clip 3, token-mean.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultOptions: Options = { ...defaultTokenOptions, aggregation: 'token-mean' }

/** The tensors the loss reads (`PolicyLoss.TokenInput`), `[batch, time]` float32. @category models @since 0.5.0 */
export type TokenInput = PolicyLoss.TokenInput
/** Per token: `L`, whether the ratio clip bound (`[L2 > L1]`), `-log rho`. @category models @since 0.5.0 */
export type Tokens = PolicyLoss.Tokens
/** @category models @since 0.1.0 */
export type Input = PolicyLoss.TokenInput
/** Scalars: `loss` (differentiable), `clipFraction`, `approxKl`. @category models @since 0.1.0 */
export type Output = PolicyLoss.Output

/**
 * The surrogate per token, before aggregation: what training computes on every shard (and
 * weighs with `Aggregation.weights`). The caller owns the three tensors.
 *
 * @category losses
 * @since 0.5.0
 */
export const perToken =
  (options: TokenOptions) =>
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
 * The PPO policy loss of a whole batch: {@link perToken} aggregated with `options.aggregation`
 * (`Aggregation.weights`, the weights training uses: `PolicyLoss.loss` with `ppo`);
 * `clipFraction` and `approxKl` are token means. Never disposes its inputs.
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
export const loss = (options: Options): ((input: Input) => Output) => batchLoss(perToken(options), options.aggregation)
