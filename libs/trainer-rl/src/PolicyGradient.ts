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
import { batchLoss } from './internal/batchLoss.js'
import type * as PolicyLoss from './PolicyLoss.js'
import * as Ppo from './Ppo.js'

/**
 * The options of the per-token loss (`PolicyLoss.registry.policyGradient`): the ratio's clip range.
 *
 * @category codecs
 * @since 0.7.0
 */
export const TokenOptions = t.type({ clipLow: Ppo.TokenOptions.props.clipLow, clipHigh: Ppo.TokenOptions.props.clipHigh })
/** @category models @since 0.7.0 */
export type TokenOptions = t.TypeOf<typeof TokenOptions>

/**
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({ ...TokenOptions.props, aggregation: Aggregation.Mode })
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/** @category constructors @since 0.7.0 */
export const defaultTokenOptions: TokenOptions = { clipLow: 0.2, clipHigh: 0.2 }

/** @category constructors @since 0.1.0 */
export const defaultOptions: Options = { ...defaultTokenOptions, aggregation: 'token-mean' }

/** Same tensors as {@link Ppo.Input}: `[batch, time]` float32. @category models @since 0.1.0 */
export type Input = PolicyLoss.TokenInput
/** @category models @since 0.1.0 */
export type Output = PolicyLoss.Output

/**
 * The clipped policy gradient per token: PPO's surrogate without its dual clip. The caller owns
 * the tensors.
 *
 * @category losses
 * @since 0.5.0
 */
export const perToken = (options: TokenOptions): ((input: PolicyLoss.TokenInput) => PolicyLoss.Tokens) =>
  Ppo.perToken({ clipLow: options.clipLow, clipHigh: options.clipHigh, dualClip: null })

/**
 * The clipped policy-gradient loss of a whole batch ({@link perToken}, aggregated). The caller
 * owns the scalars.
 *
 * @category losses
 * @since 0.1.0
 */
export const loss = (options: Options): ((input: Input) => Output) => batchLoss(perToken(options), options.aggregation)
