/**
 * The normalised score-delta reward shared by `dense` and `density`.
 *
 *   d_k = turns[k].reward / M        M = maxScore of the last turn (1 when maxScore <= 0)
 *   events = the turns with d_k != 0, in order; keep(j, n) says whether event j of n pays
 *   r_k = d_k for kept events, 0 otherwise
 *   won:  r_{K-1} += 1 - sum_k r_k     (a win sums to exactly 1)
 *   lost: r_{K-1} -= max(0, sum_k r_k - 1)   (a loss never sums to more than a win)
 */
import type { Trajectory } from '@mtrl/core'

export const normaliser = (trajectory: Trajectory.Trajectory): number => {
  const last = trajectory.turns[trajectory.turns.length - 1]
  return last !== undefined && last.maxScore > 0 ? last.maxScore : 1
}

export const shapedDeltas = (trajectory: Trajectory.Trajectory, keep: (event: number, events: number) => boolean): number[] => {
  const { turns } = trajectory
  if (turns.length === 0) return []
  const m = normaliser(trajectory)
  const deltas = turns.map((turn) => turn.reward / m)
  const events = deltas.flatMap((d, k) => (d !== 0 ? [k] : []))
  const out = new Array<number>(turns.length).fill(0)
  events.forEach((k, j) => {
    if (keep(j, events.length)) out[k] = deltas[k]!
  })
  const sum = out.reduce((a, b) => a + b, 0)
  const last = turns.length - 1
  if (trajectory.won) out[last] = out[last]! + (1 - sum)
  else if (sum > 1) out[last] = out[last]! - (sum - 1)
  return out
}
