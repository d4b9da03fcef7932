/**
 * The reward contract: a pure function from a finished trajectory to one reward per turn.
 * Reward designs (sparse, dense, penalties, density control) live in `@mtrl/rewards`.
 *
 * @since 0.1.0
 */
import type { Trajectory } from './Trajectory.js'

/**
 * One reward per turn (`result.length === trajectory.turns.length`).
 *
 * @category models
 * @since 0.1.0
 */
export type RewardFn = (trajectory: Trajectory) => ReadonlyArray<number>

/**
 * Sum of reward functions, turn by turn.
 *
 * @example
 * import { RewardFn } from '@mtrl/core'
 * const both = RewardFn.sum([(t) => t.turnRewards, (t) => t.turns.map((u) => (u.valid ? 0 : -0.1))])
 *
 * @category combinators
 * @since 0.1.0
 */
export const sum =
  (fns: ReadonlyArray<RewardFn>): RewardFn =>
  (trajectory) => {
    const out = new Array<number>(trajectory.turns.length).fill(0)
    for (const fn of fns) {
      const rewards = fn(trajectory)
      if (rewards.length !== out.length) throw new Error(`RewardFn.sum: a reward function returned ${rewards.length} rewards for ${out.length} turns`)
      rewards.forEach((r, i) => (out[i] = out[i]! + r))
    }
    return out
  }

/**
 * A reward function scaled by a constant.
 *
 * @category combinators
 * @since 0.1.0
 */
export const scale =
  (factor: number) =>
  (fn: RewardFn): RewardFn =>
  (trajectory) =>
    fn(trajectory).map((r) => r * factor)
