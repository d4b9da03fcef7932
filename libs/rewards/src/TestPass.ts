/**
 * Rewards for code repair (SWE-Gym): the SWE environment reports the fraction of passing unit
 * tests (FAIL_TO_PASS + PASS_TO_PASS) as its final `score / maxScore`. The paper finds the pass
 * ratio far better than the binary verdict (Wang & Ammanabrolu 2025,
 * https://arxiv.org/abs/2510.01132, Table 12: 22% vs 4.2% with GRPO on Qwen3-8B).
 *
 * @since 0.1.0
 */
import type { RewardFn, Trajectory } from '@mtrl/core'

/**
 * Pass fraction of the episode: the last turn's `score / maxScore`, clamped to [0, 1]; 0 when
 * there is no turn or `maxScore <= 0`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const passRatio = (trajectory: Trajectory.Trajectory): number => {
  const last = trajectory.turns[trajectory.turns.length - 1]
  if (last === undefined || !(last.maxScore > 0)) return 0
  return Math.min(1, Math.max(0, last.score / last.maxScore))
}

const atLastTurn =
  (value: (trajectory: Trajectory.Trajectory) => number): RewardFn.RewardFn =>
  (trajectory) => {
    const v = value(trajectory)
    return trajectory.turns.map((_, k) => (k === trajectory.turns.length - 1 ? v : 0))
  }

/**
 * `r_{K-1} = passRatio`, 0 at the other turns ("ratio verified").
 *
 * @example
 * import { TestPass } from '@mtrl/rewards'
 * declare const trajectory: import('@mtrl/core').Trajectory.Trajectory
 * const rewards = TestPass.testPassRatio(trajectory) // 7 of 10 tests pass -> [0, ..., 0.7]
 * @category rewards
 * @since 0.1.0
 */
export const testPassRatio: RewardFn.RewardFn = atLastTurn(passRatio)

/**
 * `r_{K-1} = 1` only if every test passes (`passRatio = 1`), else 0 ("binary verified").
 *
 * @category rewards
 * @since 0.1.0
 */
export const binary: RewardFn.RewardFn = atLastTurn((trajectory) => (passRatio(trajectory) === 1 ? 1 : 0))
