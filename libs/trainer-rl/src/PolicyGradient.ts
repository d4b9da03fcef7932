/**
 * The policy gradient of the critic-free estimators (GRPO, Shao et al. 2024,
 * https://arxiv.org/abs/2402.03300; RLOO, Ahmadian et al. 2024, https://arxiv.org/abs/2402.14740;
 * REINFORCE++, Hu 2025, https://arxiv.org/abs/2501.03262): `-A rho`, with the same ratio clip as
 * PPO and no dual clip. With one update per batch (on-policy) rho = 1 and its gradient is the
 * plain REINFORCE gradient `-A grad log p`; with several epochs the clip keeps updates close.
 *
 * ```
 * rho = exp(clamp(logp - logp_old, -20, 20))
 * L = max(-A rho, -A clip(rho, 1 - clipLow, 1 + clipHigh)) ;  loss = aggregate(L, mask)
 * ```
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'
import * as Aggregation from './Aggregation.js'
import * as Ppo from './Ppo.js'

/**
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({ clipLow: t.number, clipHigh: t.number, aggregation: Aggregation.Mode })
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/** @category constructors @since 0.1.0 */
export const defaultOptions: Options = { clipLow: 0.2, clipHigh: 0.2, aggregation: 'token-mean' }

/** Same tensors as {@link Ppo.Input}: `[batch, time]` float32. @category models @since 0.1.0 */
export type Input = Ppo.Input
/** @category models @since 0.1.0 */
export type Output = Ppo.Output

/**
 * The clipped policy gradient per token: PPO's surrogate without its dual clip. The caller owns
 * the tensors.
 *
 * @category losses
 * @since 0.5.0
 */
export const perToken = (options: Pick<Options, 'clipLow' | 'clipHigh'>): ((input: Ppo.TokenInput) => Ppo.Tokens) =>
  Ppo.perToken({ ...options, dualClip: null })

/**
 * The clipped policy-gradient loss of a whole batch ({@link perToken}, aggregated). The caller
 * owns the scalars.
 *
 * @category losses
 * @since 0.1.0
 */
export const loss = (options: Options): ((input: Input) => Output) => Ppo.loss({ ...options, dualClip: null })
