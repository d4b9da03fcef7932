/**
 * Per-turn penalties for shaping: invalid actions, badly formatted replies, and a cost per turn.
 * Each takes a non-negative magnitude and *subtracts* it. Add them to a base reward with
 * `RewardFn.sum` from `@mtrl/core` (Verlog uses a format penalty of 0.1).
 *
 * @since 0.1.0
 */
import type { RewardFn, Trajectory } from '@mtrl/core'

const perTurn = (name: string, magnitude: number, applies: (turn: Trajectory.Turn) => boolean): RewardFn.RewardFn => {
  if (!(Number.isFinite(magnitude) && magnitude >= 0)) throw new RangeError(`Penalty.${name}: expected a finite magnitude >= 0, got ${magnitude}`)
  return (trajectory) => trajectory.turns.map((turn) => (applies(turn) ? -magnitude : 0))
}

/**
 * `r_k = -p` when the environment could not perform turn k's action (`turn.valid` false), else 0.
 *
 * @example
 * import { Penalty } from '@mtrl/rewards'
 * const penalty = Penalty.invalidActionPenalty(0.1)
 * @category rewards
 * @since 0.1.0
 */
export const invalidActionPenalty = (p: number): RewardFn.RewardFn => perTurn('invalidActionPenalty', p, (turn) => !turn.valid)

/**
 * `r_k = -p` when the policy's reply at turn k lacked the action format (`turn.parsed` false), else 0.
 *
 * @category rewards
 * @since 0.1.0
 */
export const formatPenalty = (p: number): RewardFn.RewardFn => perTurn('formatPenalty', p, (turn) => !turn.parsed)

/**
 * `r_k = -c` at every turn: a price on episode length.
 *
 * @category rewards
 * @since 0.1.0
 */
export const turnCost = (c: number): RewardFn.RewardFn => perTurn('turnCost', c, () => true)
