/**
 * Rollout metrics, as data: what the episodes were (turns, success, invalid actions, format
 * errors, truncations, action hacking) and how fast they were made.
 *
 * @since 0.1.0
 */
import type { Trajectory } from '@mtrl/core'

/**
 * - `episodes`, `turns` (total), `turnsMean` (per episode);
 * - `successRate`: won episodes / episodes; `returnMean`: mean sum of environment rewards;
 * - `invalidRate`: turns the environment (or the admissibility check) rejected / turns;
 * - `formatErrorRate`: unparseable replies / turns; `cutOffRate`: replies that hit `maxNewTokens`;
 * - `exploredRate`: exploration moves (turns marked `explored`, see `Rollout.Options.exploreRate`) / turns;
 * - `truncatedRate`: episodes ended by the turn or context budget;
 * - `actionHackingRate`: among consecutive turn pairs of an episode, the fraction where the
 *   reasoning text is unchanged (and non-empty) but the action changed (tagged format; 0 for plain);
 * - `generatedTokens` (sampled), `contextTokens` (prompt and observation tokens prefilled);
 * - `tokensPerSecond`: generated tokens per second of wall-clock; `turnsPerSecond`; `seconds`.
 *
 * @category models
 * @since 0.1.0
 */
export interface RolloutMetrics {
  readonly episodes: number
  readonly turns: number
  readonly turnsMean: number
  readonly successRate: number
  readonly returnMean: number
  readonly invalidRate: number
  readonly formatErrorRate: number
  readonly cutOffRate: number
  readonly exploredRate: number
  readonly truncatedRate: number
  readonly actionHackingRate: number
  readonly generatedTokens: number
  readonly contextTokens: number
  readonly tokensPerSecond: number
  readonly turnsPerSecond: number
  readonly seconds: number
}

/**
 * Counters a rollout keeps besides the trajectories.
 *
 * @category models
 * @since 0.1.0
 */
export interface Counters {
  readonly generatedTokens: number
  readonly contextTokens: number
  readonly cutOff: number
  readonly hackingPairs: number
  readonly pairs: number
  readonly seconds: number
}

/**
 * Action hacking in one episode's replies (tagged format): over consecutive pairs of turns, how
 * many kept the same non-empty reasoning but changed the action, and how many pairs there were.
 *
 * @category destructors
 * @since 0.1.0
 */
export const actionHacking = (
  replies: ReadonlyArray<{ readonly reasoning: string; readonly action: string }>
): { readonly hacked: number; readonly pairs: number } => {
  let hacked = 0
  for (let k = 1; k < replies.length; k++) {
    const a = replies[k - 1]!
    const b = replies[k]!
    if (b.reasoning.length > 0 && b.reasoning === a.reasoning && b.action !== a.action) hacked++
  }
  return { hacked, pairs: Math.max(0, replies.length - 1) }
}

const ratio = (a: number, b: number): number => (b === 0 ? 0 : a / b)

/**
 * Metrics of finished episodes.
 *
 * @category constructors
 * @since 0.1.0
 */
export const summarize = (trajectories: ReadonlyArray<Trajectory.Trajectory>, counters: Counters): RolloutMetrics => {
  let turns = 0
  let won = 0
  let invalid = 0
  let unparsed = 0
  let explored = 0
  let truncated = 0
  let returns = 0
  for (const trajectory of trajectories) {
    turns += trajectory.turns.length
    if (trajectory.won) won++
    if (trajectory.truncated) truncated++
    for (const turn of trajectory.turns) {
      if (!turn.valid) invalid++
      if (!turn.parsed) unparsed++
      if (turn.explored === true) explored++
    }
    returns += trajectory.turnRewards.reduce((a, b) => a + b, 0)
  }
  const n = trajectories.length
  return {
    episodes: n,
    turns,
    turnsMean: ratio(turns, n),
    successRate: ratio(won, n),
    returnMean: ratio(returns, n),
    invalidRate: ratio(invalid, turns),
    formatErrorRate: ratio(unparsed, turns),
    cutOffRate: ratio(counters.cutOff, turns),
    exploredRate: ratio(explored, turns),
    truncatedRate: ratio(truncated, n),
    actionHackingRate: ratio(counters.hackingPairs, counters.pairs),
    generatedTokens: counters.generatedTokens,
    contextTokens: counters.contextTokens,
    tokensPerSecond: ratio(counters.generatedTokens, counters.seconds),
    turnsPerSecond: ratio(turns, counters.seconds),
    seconds: counters.seconds
  }
}
