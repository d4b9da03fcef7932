/**
 * Turn-level GAE: one MDP step per turn instead of per token. The critic is read once per turn
 * (at the turn's first action token), a turn's reward is the sum of its tokens' rewards, and the
 * turn's advantage is broadcast to all of its action tokens. Use it when turns, not tokens, are
 * the actions that the environment answers (the turn-level critic of AReaL's
 * `gae_timestep_unit: turn`, Oat/gem PR #85; the turn stage of RAGEN's bi-level GAE,
 * https://arxiv.org/abs/2504.20073).
 *
 * Variant: turns are given by `turnIndex`, so a turn whose reward is exactly 0 is still a step
 * (RAGEN finds turn boundaries from non-zero rewards, which merges such turns). No token-level
 * stage (see `DualDiscountGae` for one).
 *
 * @since 0.1.0
 */
import * as Shared from './internal/gaeShared.js'
import type { Estimate, TokenBatch } from './TokenBatch.js'

/**
 * - `gamma`: discount per turn, in [0, 1];
 * - `lambda`: GAE lambda across turns, in [0, 1];
 * - `whiten`: whiten the advantages over all action tokens (each turn weighs by its length).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = Shared.Options
/** @category models @since 0.1.0 */
export type Options = Shared.Options

/**
 * gamma = lambda = 1, whitened (as the token-level `Gae`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultOptions: Options = Shared.defaultOptions

/**
 * GAE over the turns `k = 0 .. K-1` of each row (turns in order of appearance on action tokens):
 *
 * ```
 * R_k = sum of r_t over the action tokens of turn k       V~_k = V at the first action token of turn k
 * delta_k = R_k + gamma * V~_{k+1} - V~_k                 V~_K = bootstrapValues[b] (0 if absent)
 * A_k = delta_k + gamma * lambda * A_{k+1}                A_K = 0
 * advantages_t = A_k, returns_t = A_k + V~_k              for every action token t of turn k
 * ```
 *
 * Requires `turnIndex [batch, time]`; absent `values` count as 0. Throws on an invalid batch.
 *
 * @example
 * import { TurnGae } from '@mtrl/advantages'
 * const out = TurnGae.estimate({ gamma: 1, lambda: 1, whiten: false })({
 *   batch: 1, time: 4,
 *   tokenRewards: Float32Array.of(0, 0.5, 0, 1),
 *   actionMask: Float32Array.of(1, 1, 0, 1),
 *   turnIndex: Int32Array.of(0, 0, 0, 1)
 * })
 * // turn 1: A = 1; turn 0: A = 0.5 + 1 = 1.5 -> advantages [1.5, 1.5, 0, 1]
 * @category estimators
 * @since 0.1.0
 */
export const estimate: (options: Options) => (input: TokenBatch) => Estimate = Shared.estimator('TurnGae', (input, options, advantages, returns) => {
  const { batch, time, tokenRewards, actionMask, values, turnIndex, bootstrapValues } = input
  if (turnIndex === undefined) throw new Error('TurnGae: invalid input: turnIndex is required')
  const { gamma, lambda } = options
  // per-turn results of the current row, indexed by turn ordinal counted from the back
  const turnAdvantage = new Float64Array(time)
  const turnReturn = new Float64Array(time)
  for (let b = 0; b < batch; b++) {
    const start = b * time
    let nextV = bootstrapValues === undefined ? 0 : bootstrapValues[b]!
    let nextA = 0
    let turns = 0
    let current = -1
    let reward = 0
    let firstV = 0
    const finishTurn = (): void => {
      const a = reward + gamma * nextV - firstV + gamma * lambda * nextA
      turnAdvantage[turns] = a
      turnReturn[turns] = a + firstV
      turns++
      nextV = firstV
      nextA = a
    }
    for (let i = start + time - 1; i >= start; i--) {
      if (actionMask[i] !== 1) continue
      const k = turnIndex[i]!
      if (k !== current) {
        if (current !== -1) finishTurn()
        current = k
        reward = 0
      }
      reward += tokenRewards[i]!
      firstV = values === undefined ? 0 : values[i]!
    }
    if (current !== -1) finishTurn()
    current = -1
    let ordinal = -1
    for (let i = start + time - 1; i >= start; i--) {
      if (actionMask[i] !== 1) continue
      const k = turnIndex[i]!
      if (k !== current) {
        current = k
        ordinal++
      }
      advantages[i] = turnAdvantage[ordinal]!
      returns[i] = turnReturn[ordinal]!
    }
  }
})
