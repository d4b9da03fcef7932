/**
 * Reward density control, to reproduce the paper's density ablation (Wang & Ammanabrolu 2025,
 * https://arxiv.org/abs/2510.01132, Table 11: sparse vs two dense schedules, reported as steps
 * per reward): keep a fraction of the dense reward events, from sparse (0, the outcome reward)
 * to fully dense (1, the dense reward).
 *
 * @since 0.1.0
 */
import type { RewardFn } from '@mtrl/core'
import { shapedDeltas } from './internal/scoreDeltas.js'

/**
 * Which of `events` reward events a fraction keeps: event `j` (0-based, in turn order) is kept
 * iff `floor((j + 1) * fraction) > floor(j * fraction)`. Exactly `floor(events * fraction)`
 * events are kept, spread evenly (0.5 keeps events 1, 3, 5, ...; 1/3 keeps 2, 5, 8, ...);
 * deterministic, no randomness, and the same for every episode with the same events.
 *
 * @category destructors
 * @since 0.1.0
 */
export const keeps = (fraction: number, event: number): boolean => Math.floor((event + 1) * fraction) > Math.floor(event * fraction)

/**
 * The dense reward with only a fraction of its events paid. An event is a turn whose normalised
 * score delta `d_k` is non-zero (`Dense`); {@link keeps} selects the events. Then, as in
 * `Dense.dense`:
 *
 * ```
 * r_k = d_k if turn k is a kept event, else 0
 * won:  r_{K-1} += 1 - sum_k r_k             a win always sums to 1
 * lost: r_{K-1} -= max(0, sum_k r_k - 1)     a loss never sums to more than a win
 * ```
 *
 * `density(0)` pays no event, so it equals `Outcome.outcome`; `density(1)` pays all, so it
 * equals `Dense.dense`. Dropped events are dropped, not deferred: a loss earns only the partial
 * credit of its kept events (as tw-simple's sparser schedules reward fewer sub-goals).
 *
 * @param fraction in [0, 1]; throws a RangeError otherwise (programmer error)
 * @example
 * import { Density } from '@mtrl/rewards'
 * const half = Density.density(0.5)
 * // won, deltas [0.25, 0.25, 0.25, 0.25]: events 1 and 3 kept -> [0, 0.25, 0, 0.75]
 *
 * @category rewards
 * @since 0.1.0
 */
export const density = (fraction: number): RewardFn.RewardFn => {
  if (!(fraction >= 0 && fraction <= 1)) throw new RangeError(`Density.density: fraction must be in [0, 1], got ${fraction}`)
  return (trajectory) => shapedDeltas(trajectory, (event) => keeps(fraction, event))
}
