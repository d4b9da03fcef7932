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
import * as t from 'io-ts'
import * as Aggregation from './Aggregation.js'
import { surrogate, type SurrogateInput, type SurrogateOutput } from './internal/surrogate.js'

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
  dualClip: t.union([t.number, t.null]),
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
 * Tensors of a PPO loss, all `[batch, time]` float32: `logprobs` (current policy, differentiable),
 * `oldLogprobs` (behaviour policy), `advantages`, `mask` (1 on action tokens).
 *
 * @category models
 * @since 0.1.0
 */
export type Input = SurrogateInput
/**
 * Scalars: `loss` (differentiable), `clipFraction`, `approxKl`. The caller owns them.
 *
 * @category models
 * @since 0.1.0
 */
export type Output = SurrogateOutput

/**
 * The PPO policy loss. Runs in `tf.tidy`; never disposes its inputs.
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
    if (options.dualClip !== null && options.dualClip <= 1) throw new Error(`Ppo.loss: dualClip must be > 1, got ${options.dualClip}`)
    return surrogate(options.clipLow, options.clipHigh, options.dualClip, options.aggregation, input)
  }

