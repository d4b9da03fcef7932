/**
 * What an evaluation reports about finished episodes: the success rate with a 95% Wilson
 * confidence interval (Wilson 1927; Brown, Cai & DasGupta 2001 recommend it over the normal
 * interval for small n and rates near 0 or 1), mean turns and return, the share of invalid
 * actions, and the success rate per task type.
 *
 * @since 0.1.0
 */
import type { Trajectory } from '@mtrl/core'

/**
 * A closed interval `[low, high]` within [0, 1].
 *
 * @category models
 * @since 0.1.0
 */
export interface Interval {
  readonly low: number
  readonly high: number
}

/**
 * Wilson score interval for a binomial proportion (`z = 1.96`: 95%):
 *
 * ```
 * p = k / n ;  centre = (p + z^2 / 2n) / (1 + z^2 / n)
 * half = z sqrt(p (1 - p) / n + z^2 / 4n^2) / (1 + z^2 / n)      [centre - half, centre + half]
 * ```
 * `[0, 1]` for `n = 0`.
 *
 * @example
 * import { Summary } from '@mtrl/eval'
 * Summary.wilson(90, 100) // { low: 0.8256..., high: 0.9448... }
 *
 * @category constructors
 * @since 0.1.0
 */
export const wilson = (successes: number, n: number, z = 1.96): Interval => {
  if (n === 0) return { low: 0, high: 1 }
  const p = successes / n
  const denom = 1 + (z * z) / n
  const centre = (p + (z * z) / (2 * n)) / denom
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) }
}

/**
 * Episodes and success rate of one task type.
 *
 * @category models
 * @since 0.1.0
 */
export interface TaskTypeSummary {
  readonly episodes: number
  readonly successRate: number
}

/**
 * The evaluation of one environment. `turnsMean`, `returnMean` are per episode; `invalidRate`
 * is per turn (actions the environment did not accept).
 *
 * @category models
 * @since 0.1.0
 */
export interface Summary {
  readonly env: string
  readonly episodes: number
  readonly successRate: number
  readonly ci95: Interval
  readonly turnsMean: number
  readonly returnMean: number
  readonly invalidRate: number
  readonly perTaskType: Readonly<Record<string, TaskTypeSummary>>
  /** Which held-out games were played (set by `Evaluate.run`): the split, the first seed, how many. */
  readonly seeds?: { readonly split: string; readonly first: number; readonly count: number }
}

/**
 * What a summary reads of one episode: the outcome, the turns (with whether each action was
 * valid), the turn rewards, and the task type when the environment has types.
 *
 * @category models
 * @since 0.1.0
 */
export interface Outcome {
  readonly won: boolean
  readonly turns: ReadonlyArray<{ readonly valid: boolean }>
  readonly turnRewards: ReadonlyArray<number>
  readonly taskType?: string | undefined
}

/**
 * The outcome of a trajectory, with its task type.
 *
 * @category constructors
 * @since 0.1.0
 */
export const outcome = (episode: Trajectory.Trajectory, taskType?: string): Outcome => ({
  won: episode.won,
  turns: episode.turns,
  turnRewards: episode.turnRewards,
  taskType
})

/**
 * Summarises finished episodes of environment `env` (0 everywhere for no episodes, and the
 * interval `[0, 1]`).
 *
 * @example
 * import { Summary } from '@mtrl/eval'
 * const s = Summary.summarise('bandit', [{ won: true, turns: [{ valid: true }], turnRewards: [1] }])
 * s.successRate // 1
 *
 * @category destructors
 * @since 0.1.0
 */
export const summarise = (env: string, episodes: ReadonlyArray<Outcome>): Summary => {
  const n = episodes.length
  const wins = episodes.filter((t) => t.won).length
  const turns = episodes.reduce((s, t) => s + t.turns.length, 0)
  const returns = episodes.reduce((s, t) => s + t.turnRewards.reduce((a, b) => a + b, 0), 0)
  const invalid = episodes.reduce((s, t) => s + t.turns.filter((u) => !u.valid).length, 0)
  const byType = new Map<string, Outcome[]>()
  for (const t of episodes) if (t.taskType !== undefined) byType.set(t.taskType, [...(byType.get(t.taskType) ?? []), t])
  const perTaskType: Record<string, TaskTypeSummary> = {}
  for (const [type, list] of byType) perTaskType[type] = { episodes: list.length, successRate: list.filter((t) => t.won).length / list.length }
  return {
    env,
    episodes: n,
    successRate: n === 0 ? 0 : wins / n,
    ci95: wilson(wins, n),
    turnsMean: n === 0 ? 0 : turns / n,
    returnMean: n === 0 ? 0 : returns / n,
    invalidRate: turns === 0 ? 0 : invalid / turns,
    perTaskType
  }
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`

/**
 * The summaries as text for people, one line per environment: success rate with its interval,
 * mean turns, invalid actions, and which held-out seeds were played.
 *
 * @example
 * import { Summary } from '@mtrl/eval'
 * Summary.format([Summary.summarise('bandit', [{ won: true, turns: [{ valid: true }], turnRewards: [1] }])])
 * // '  bandit                             success 100.0% [20.7%, 100.0%]  turns 1.0  invalid 0.0%'
 *
 * @category destructors
 * @since 0.1.0
 */
export const format = (summaries: ReadonlyArray<Summary>): string =>
  summaries
    .map(
      (r) =>
        `  ${r.env.padEnd(34)} success ${pct(r.successRate).padStart(6)} [${pct(r.ci95.low)}, ${pct(r.ci95.high)}]  turns ${r.turnsMean.toFixed(1)}  invalid ${pct(r.invalidRate)}${r.seeds === undefined ? '' : `  (${r.seeds.split} seeds)`}`
    )
    .join('\n')

/**
 * The success rate per task type of the summaries as text for people, one indented line per type
 * (empty when no environment has task types).
 *
 * @category destructors
 * @since 0.1.0
 */
export const formatTaskTypes = (summaries: ReadonlyArray<Summary>): string =>
  summaries
    .map((r) =>
      Object.entries(r.perTaskType)
        .map(([t, v]) => `    ${t}: ${(100 * v.successRate).toFixed(1)}% of ${v.episodes}`)
        .join('\n')
    )
    .filter((s) => s !== '')
    .join('\n')
