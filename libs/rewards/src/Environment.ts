/**
 * The environment's own rewards, as it gave them: for an environment whose reward is already
 * the design wanted (TextWorld's intermediate reward, a remote environment's shaped reward),
 * where `dense` would renormalise it as a score.
 *
 * @since 0.4.0
 */
import type { RewardFn } from '@mtrl/core'

/**
 * `r_k = turns[k].reward`.
 *
 * @example
 * import { Environment } from '@mtrl/rewards'
 * declare const trajectory: import('@mtrl/core').Trajectory.Trajectory
 * const rewards = Environment.environment(trajectory) // e.g. [1, -1, 1, 1]
 *
 * @category rewards
 * @since 0.4.0
 */
export const environment: RewardFn.RewardFn = (trajectory) => trajectory.turns.map((turn) => turn.reward)
