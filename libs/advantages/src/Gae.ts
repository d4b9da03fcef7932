/**
 * Token-level Generalized Advantage Estimation (Schulman et al. 2016,
 * https://arxiv.org/abs/1506.02438) over the action tokens of multi-turn episodes: the PPO
 * estimator of "A Practitioner's Guide to Multi-turn Agentic RL" (Wang & Ammanabrolu 2025,
 * https://arxiv.org/abs/2510.01132).
 *
 * Variant: verl's **skipping** GAE (`compute_gae_advantage_return`, PR verl#2337). Observation
 * tokens (mask 0) add no TD step and no decay: the running value and the running advantage carry
 * over them unchanged, so only action-token transitions are chained. (SkyRL and OpenRLHF run the
 * plain recursion over every token and mask only in the loss; TRL likewise.)
 *
 * @since 0.1.0
 */
import { gaeScan } from './internal/gaeScan.js'
import * as Shared from './internal/gaeShared.js'
import type { Estimate, TokenBatch } from './TokenBatch.js'

/**
 * - `gamma`: discount per action token, in [0, 1];
 * - `lambda`: GAE lambda, in [0, 1] (1: Monte-Carlo return minus V, 0: one-step TD);
 * - `whiten`: whiten the advantages over all action tokens of the batch (verl's `masked_whiten`).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = Shared.Options
/** @category models @since 0.1.0 */
export type Options = Shared.Options

/**
 * verl's defaults: gamma = lambda = 1, whitened.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultOptions: Options = Shared.defaultOptions

/**
 * GAE over the action tokens of each row. Let `t_1 < ... < t_n` be the action tokens of a row:
 *
 * ```
 * delta_j = r_{t_j} + gamma * V_{t_{j+1}} - V_{t_j}     V_{t_{n+1}} = bootstrapValues[b] (0 if absent)
 * A_{t_j} = delta_j + gamma * lambda * A_{t_{j+1}}      A_{t_{n+1}} = 0
 * returns_{t_j} = A_{t_j} + V_{t_j}                     (before whitening)
 * whiten: A <- (A - mean) / sqrt(var + 1e-8)            mean, sample var over all action tokens
 * ```
 *
 * Absent `values` count as 0 (then gamma = lambda = 1 gives the reward-to-go). Advantages and
 * returns are 0 off the mask; values and rewards off the mask are never read.
 *
 * @param options see {@link Options}
 * @returns a function of a {@link TokenBatch} (`tokenRewards`, `actionMask`, optional
 *   `values`, `bootstrapValues`; shapes `[batch, time]` and `[batch]`) to `advantages` and
 *   `returns`, `[batch, time]`. Throws on an invalid batch.
 * @example
 * import { Gae } from '@mtrl/advantages'
 * const out = Gae.estimate({ gamma: 1, lambda: 1, whiten: false })({
 *   batch: 1, time: 3,
 *   tokenRewards: Float32Array.of(0, 0, 1),
 *   actionMask: Float32Array.of(1, 0, 1),
 *   values: Float32Array.of(0.5, 9, 0.25)
 * })
 * // out.advantages = [0.5, 0, 0.75], out.returns = [1, 0, 1]
 * @category estimators
 * @since 0.1.0
 */
export const estimate: (options: Options) => (input: TokenBatch) => Estimate = Shared.estimator('Gae', (input, options, advantages, returns) =>
  gaeScan(input, options.gamma, options.lambda, advantages, returns)
)
