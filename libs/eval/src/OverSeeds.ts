/**
 * A success rate over training seeds with a 95% interval that stays inside [0, 1]: the mean of
 * the seeds' rates, and a logit-scale interval whose standard error counts both what varies from
 * seed to seed and which games were drawn. mtrl plays every seed on the same held-out games, so
 * the games' share of the error does not average out over seeds, and a t-interval over seeds
 * alone (the old figures of docs/results.md) both understated it and ran past 100%.
 *
 * ```
 * k seeds with rates r_i, each on the same n games;  m = mean(r_i)
 * a = s^2 / k                       (s: sample std of r_i over seeds; 0 for one seed)
 * p = clamp(m, 0.5/(n+1), 1 - 0.5/(n+1))      (half a game, so that 0% and 100% get a width)
 * b = p (1 - p) / n                 (the binomial error of n shared games)
 * margin = sqrt(t_{k-1}^2 a + t_{n-1}^2 b)    (each part with its own 97.5% t quantile)
 * logit(p) ± margin / (p (1 - p))   (delta method on the logit scale)
 * ```
 * mapped back with the logistic function (and widened to hold `m` where it was clamped). It is
 * inside [0, 1], holds the mean, and narrows with more seeds or more games (each part's own
 * quantile keeps that true; a Welch-Satterthwaite df would not: fewer games' error can leave the
 * seeds' few degrees of freedom alone and widen it). With 3 seeds t_2 = 4.30, so the seeds' part
 * is wide: that is what three seeds know. One seed gives the logit interval over its games only:
 * label such a figure "one seed".
 *
 * @since 0.2.0
 */
import type { Interval } from './Summary.js'
import * as StudentT from './internal/studentT.js'

/**
 * The mean over seeds and its interval, with how many seeds and games per seed it rests on.
 *
 * @category models
 * @since 0.2.0
 */
export interface OverSeeds {
  readonly mean: number
  readonly ci95: Interval
  readonly seeds: number
  readonly games: number
}

const logit = (p: number): number => Math.log(p / (1 - p))
const logistic = (z: number): number => 1 / (1 + Math.exp(-z))

/**
 * The mean success rate of seeds that each played the same `games` games, with its 95%
 * interval (see the module's formula). Rates are in [0, 1].
 *
 * @example
 * import { OverSeeds } from '@mtrl/eval'
 * OverSeeds.interval(100)([0.82, 0.85, 0.83]) // { mean: 0.8333..., ci95: { low: 0.7332..., high: 0.9009... }, seeds: 3, games: 100 }
 *
 * @category constructors
 * @since 0.2.0
 */
export const interval =
  (games: number) =>
  (rates: ReadonlyArray<number>): OverSeeds => {
    if (rates.length === 0) throw new Error('OverSeeds.interval: no rates')
    if (!(Number.isInteger(games) && games >= 2)) throw new Error(`OverSeeds.interval: games must be an integer >= 2, got ${games}`)
    const bad = rates.find((r) => !(r >= 0 && r <= 1))
    if (bad !== undefined) throw new Error(`OverSeeds.interval: a rate must be in [0, 1], got ${bad}`)
    const k = rates.length
    const mean = rates.reduce((s, r) => s + r, 0) / k
    const a = k < 2 ? 0 : rates.reduce((s, r) => s + (r - mean) ** 2, 0) / (k - 1) / k
    const edge = 0.5 / (games + 1)
    const p = Math.min(Math.max(mean, edge), 1 - edge)
    const b = (p * (1 - p)) / games
    const tSeeds = k < 2 ? 0 : StudentT.quantile(0.975, k - 1)
    const tGames = StudentT.quantile(0.975, games - 1)
    const half = Math.sqrt(tSeeds * tSeeds * a + tGames * tGames * b) / (p * (1 - p))
    const low = Math.min(mean, logistic(logit(p) - half))
    const high = Math.max(mean, logistic(logit(p) + half))
    return { mean, ci95: { low, high }, seeds: k, games }
  }

/**
 * `83.3% [74.3, 89.6] (3 seeds)`, or `97.0% [91.0, 99.0] (one seed)`: a figure as docs write it.
 *
 * @category destructors
 * @since 0.2.0
 */
export const format = (o: OverSeeds): string =>
  `${(100 * o.mean).toFixed(1)}% [${(100 * o.ci95.low).toFixed(1)}, ${(100 * o.ci95.high).toFixed(1)}] (${o.seeds === 1 ? 'one seed' : `${o.seeds} seeds`})`
