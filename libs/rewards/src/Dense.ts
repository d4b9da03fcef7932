/**
 * The dense reward: the environment's per-step score deltas, normalised by the maximum score,
 * so that the sub-goals of a game pay as they are reached (TextWorld tw-simple's `dense` and
 * `balanced` schedules, the dense arm of the paper's reward study, Wang & Ammanabrolu 2025,
 * https://arxiv.org/abs/2510.01132, Table 11).
 *
 * @since 0.1.0
 */
import type { RewardFn } from '@mtrl/core'
import { shapedDeltas } from './internal/scoreDeltas.js'

/**
 * With K turns, `M = turns[K-1].maxScore` (1 if not positive), `d_k = turns[k].reward / M`
 * (the score delta of turn k, normalised):
 *
 * ```
 * r_k = d_k                                   for k < K - 1
 * won:  r_{K-1} = 1 - sum_{k < K-1} d_k        a complete win sums to exactly 1
 * lost: r_{K-1} = d_{K-1} - max(0, sum_k d_k - 1)   a loss sums to final score / M, capped at 1
 * ```
 *
 * A win that left points on the table is topped up at its last turn (winning is worth all of
 * them); a loss keeps the partial credit it earned, never more than a win. Truncated episodes
 * count as losses.
 *
 * @example
 * import { Dense } from '@mtrl/rewards'
 * declare const trajectory: import('@mtrl/core').Trajectory.Trajectory
 * const rewards = Dense.dense(trajectory) // e.g. maxScore 4, deltas [1, 0, 2, 1], won -> [0.25, 0, 0.5, 0.25]
 *
 * @category rewards
 * @since 0.1.0
 */
export const dense: RewardFn.RewardFn = (trajectory) => shapedDeltas(trajectory, () => true)
