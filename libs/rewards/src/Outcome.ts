/**
 * The sparse outcome reward: 1 at the last turn of a won episode, 0 everywhere else. The
 * "single" reward of "A Practitioner's Guide to Multi-turn Agentic RL" (Wang & Ammanabrolu
 * 2025, https://arxiv.org/abs/2510.01132) for TextWorld and ALFWorld.
 *
 * @since 0.1.0
 */
import type { RewardFn } from '@mtrl/core'

/**
 * `r_k = 1` if `k = K - 1` and `trajectory.won`, else 0 (K = number of turns).
 *
 * @example
 * import { Outcome } from '@mtrl/rewards'
 * declare const trajectory: import('@mtrl/core').Trajectory.Trajectory
 * const rewards = Outcome.outcome(trajectory) // e.g. [0, 0, 1]
 *
 * @category rewards
 * @since 0.1.0
 */
export const outcome: RewardFn.RewardFn = (trajectory) => trajectory.turns.map((_, k) => (trajectory.won && k === trajectory.turns.length - 1 ? 1 : 0))
