/**
 * Replay of failed training games: a share of each iteration's task seeds is drawn from the
 * games the policy lost recently, so that the games it rarely wins are played again while the
 * policy changes, instead of once (a failed-level replay in the spirit of Prioritized Level
 * Replay, Jiang et al. 2021, with the simplest score: lost or not). Fresh seeds fill the rest.
 *
 * A game enters the queue when any episode of its group is lost, and leaves it when it is
 * drawn; a game replayed and lost again re-enters until it has been replayed `attempts` times.
 * The queue keeps the `seedsPerIteration` most recent losses (older ones drop), and replays the
 * most recent first.
 *
 * @since 0.3.0
 */
import { Numbers } from '@mtrl/core'
import * as t from 'io-ts'

/**
 * - `share`: the fraction of each iteration's seeds taken from the queue (rounded down; fewer
 *   when the queue holds fewer games); 0 turns replay off;
 * - `attempts`: how many times one lost game is replayed at most.
 *
 * @category codecs
 * @since 0.3.0
 */
export const Options = t.type({
  share: Numbers.UnitInterval,
  attempts: Numbers.PositiveInt
})
/** @category models @since 0.3.0 */
export type Options = t.TypeOf<typeof Options>

/** Replay off. @category constructors @since 0.3.0 */
export const off: Options = { share: 0, attempts: 1 }

/**
 * A lost game waiting to be replayed: its task seed and how many times it has been replayed.
 *
 * @category codecs
 * @since 0.3.0
 */
export const Entry = t.type({ seed: t.number, replays: t.number })
/** @category models @since 0.3.0 */
export type Entry = t.TypeOf<typeof Entry>

/** Most recent loss first. @category models @since 0.3.0 */
export type Queue = ReadonlyArray<Entry>

/**
 * One iteration's seeds, each with its play's replay number (0: a fresh game, k: its k-th
 * replay), and the queue left.
 *
 * @category models
 * @since 0.3.0
 */
export interface Draw {
  readonly seeds: ReadonlyArray<number>
  readonly replays: ReadonlyArray<number>
  readonly queue: Queue
}

/**
 * Draws `count` seeds: up to `floor(share * count)` from the head of the queue, then fresh
 * ones from `fresh` (called once per fresh seed, in order, so the task stream advances by the
 * number of fresh seeds only).
 *
 * @category constructors
 * @since 0.3.0
 */
export const draw =
  (options: Options, count: number, fresh: () => number) =>
  (queue: Queue): Draw => {
    const taken = queue.slice(0, Math.min(queue.length, Math.floor(options.share * count)))
    const rest = Array.from({ length: count - taken.length }, fresh)
    return {
      seeds: [...taken.map((e) => e.seed), ...rest],
      replays: [...taken.map((e) => e.replays + 1), ...rest.map(() => 0)],
      queue: queue.slice(taken.length)
    }
  }

/**
 * The queue after an iteration: the games of `drawn` that were lost (`lost[i]` for
 * `drawn.seeds[i]`) and have been replayed fewer than `attempts` times go to its head, in draw
 * order; it keeps at most `capacity` games (the oldest drop).
 *
 * @category combinators
 * @since 0.3.0
 */
export const record =
  (options: Options, capacity: number, drawn: Draw, lost: ReadonlyArray<boolean>) =>
  (queue: Queue): Queue => {
    if (options.share === 0) return []
    const again = drawn.seeds.flatMap((seed, i) => (lost[i] === true && drawn.replays[i]! < options.attempts ? [{ seed, replays: drawn.replays[i]! }] : []))
    return [...again, ...queue].slice(0, capacity)
  }
