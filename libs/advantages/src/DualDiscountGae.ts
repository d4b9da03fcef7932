/**
 * Dual-discount GAE, Verlog's scheme (Chen et al. 2025, "Verlog: context-lite multi-turn RL for
 * long-horizon LLM agents", https://github.com/WentseChen/Verlog,
 * `verl/trainer/ppo/core_algos.py::compute_gae_advantage_return_core`): GAE across turns with a
 * turn-level discount and lambda, and a Monte-Carlo return with its own discount within a turn,
 * bootstrapped from the next turn's value. Use it for long episodes where a per-token discount
 * would make the horizon thousands of steps long.
 *
 * Variant: Verlog asserts a token-level gamma = lambda = 1; here the token lambda is 1 and the
 * token gamma `tokenGamma` is free (1 reproduces Verlog exactly). Verlog keeps one turn per
 * row and uses the last collected turn only as a bootstrap; here a row is a whole episode
 * (or window) and a truncated window bootstraps from `bootstrapValues[b]`, the value of the
 * first turn after the window (pass that turn's V~ to get Verlog's treatment).
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'
import { UnitInterval } from './internal/codecs.js'
import { whitenInPlace } from './internal/whiten.js'
import { assertValid, type Estimate, type TokenBatch } from './TokenBatch.js'

/**
 * - `gamma`: discount between turns, in [0, 1] (Verlog's `step_gamma`);
 * - `lambda`: GAE lambda across turns, in [0, 1] (Verlog's `step_lam`);
 * - `tokenGamma`: discount between the action tokens of one turn, in [0, 1];
 * - `whiten`: whiten the advantages over all action tokens.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({ gamma: UnitInterval, lambda: UnitInterval, tokenGamma: UnitInterval, whiten: t.boolean })
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * Verlog's Crafter settings: gamma 0.99, lambda 0.95, token gamma 1, whitened.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultOptions: Options = { gamma: 0.99, lambda: 0.95, tokenGamma: 1, whiten: true }

/**
 * For turn k of a row with action tokens j = 0 .. L_k - 1 (rewards r_{k,j}, values V_{k,j}),
 * `V~_k = V_{k,0}`, `g = tokenGamma`:
 *
 * ```
 * carry_k = gamma * (V~_{k+1} + lambda * A_{k+1})        V~_K = bootstrapValues[b] (0 if absent), A_K = 0
 * G_{k,j} = sum_{j' >= j} g^(j'-j) r_{k,j'} + g^(L_k-1-j) * carry_k
 * advantages_{k,j} = G_{k,j} - V_{k,j}    returns_{k,j} = G_{k,j}
 * A_k = G_{k,0} - V~_k                    (the turn-level GAE advantage)
 * ```
 *
 * With g = 1 this is Verlog's `A_{k,t} = sum_{t'>=t} r + gamma V~_{k+1} - V_{k,t} + gamma lambda A_{k+1}`,
 * and `A_k = delta_k + gamma lambda A_{k+1}` with `delta_k = R_k + gamma V~_{k+1} - V~_k`.
 * Requires `turnIndex`; absent `values` count as 0. Throws on an invalid batch.
 *
 * @example
 * import { DualDiscountGae } from '@mtrl/advantages'
 * const out = DualDiscountGae.estimate({ gamma: 0.5, lambda: 1, tokenGamma: 1, whiten: false })({
 *   batch: 1, time: 3,
 *   tokenRewards: Float32Array.of(0, 1, 2),
 *   actionMask: Float32Array.of(1, 1, 1),
 *   turnIndex: Int32Array.of(0, 0, 1)
 * })
 * // turn 1: G = 2; turn 0: carry = 0.5 * (0 + 2) = 1 -> advantages [2, 2, 2]
 * @category estimators
 * @since 0.1.0
 */
export const estimate =
  (options: Options) =>
  (input: TokenBatch): Estimate => {
    if (!Options.is(options)) throw new Error(`DualDiscountGae.estimate: invalid options ${JSON.stringify(options)}`)
    assertValid('DualDiscountGae', input)
    const { batch, time, tokenRewards, actionMask, values, turnIndex, bootstrapValues } = input
    if (turnIndex === undefined) throw new Error('DualDiscountGae: invalid input: turnIndex is required')
    const { gamma, lambda, tokenGamma } = options
    const advantages = new Float32Array(batch * time)
    const returns = new Float32Array(batch * time)
    for (let b = 0; b < batch; b++) {
      const start = b * time
      let carry = gamma * (bootstrapValues === undefined ? 0 : bootstrapValues[b]!)
      let current = -1
      let g = 0 // G of the last processed token (the first token of the turn, once the turn is done)
      let v = 0 // V of the last processed token
      for (let i = start + time - 1; i >= start; i--) {
        if (actionMask[i] !== 1) continue
        const k = turnIndex[i]!
        if (k !== current) {
          if (current !== -1) carry = gamma * (v + lambda * (g - v))
          current = k
          g = tokenRewards[i]! + carry
        } else {
          g = tokenRewards[i]! + tokenGamma * g
        }
        v = values === undefined ? 0 : values[i]!
        advantages[i] = g - v
        returns[i] = g
      }
    }
    if (options.whiten) whitenInPlace(advantages, actionMask)
    return { batch, time, advantages, returns }
  }
