/**
 * The running totals a rollout keeps besides its trajectories: the counters of
 * `RolloutMetrics.Counters` except `seconds`, which is measured once, at the end.
 */
import * as RolloutMetrics from '../RolloutMetrics.js'

/** Running totals, updated in place as the rollout plays. */
export interface Tally {
  generatedTokens: number
  contextTokens: number
  cutOff: number
  hackingPairs: number
  pairs: number
}

/** A tally with every total at zero. */
export const emptyTally = (): Tally => ({ generatedTokens: 0, contextTokens: 0, cutOff: 0, hackingPairs: 0, pairs: 0 })

/** Adds one finished episode's action hacking (tagged format) to the tally. */
export const countHacking = (tally: Tally, replies: ReadonlyArray<{ readonly reasoning: string; readonly action: string }>): void => {
  const h = RolloutMetrics.actionHacking(replies)
  tally.hackingPairs += h.hacked
  tally.pairs += h.pairs
}
