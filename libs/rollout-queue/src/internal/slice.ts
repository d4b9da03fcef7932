/**
 * Playing a slice of an iteration's episode slots: `seeds.length` groups of `groupSize`, the
 * iteration's slots `firstSlot ..< firstSlot + seeds.length * groupSize`, each sampling from its
 * stream of `key` (`Rollout.Streams`), so the episodes are those a rollout of the whole iteration
 * plays in the same slots. What a queue worker does with a job (`play.ts`) and a rollout thread
 * with its share (`threadWorker.ts`, and the calling thread in `Threads.ts`), and the result both
 * send back: the episodes with their slots counted in the iteration, and the rollout's counters.
 */
import type { Env, EnvError } from '@mtrl/core'
import { Rollout, type Generator, type RolloutMetrics } from '@mtrl/rollout'
import type * as E from 'fp-ts/lib/Either.js'
import type * as Wire from '../Wire.js'

/** Which slots to play and how: a `Wire.Job` without its policy and environment spec. */
export type Slice = Pick<Wire.Job, 'rollout' | 'contextLength' | 'groupSize' | 'seeds' | 'firstSlot' | 'key'>

/** Plays the slice with `generator` on `envs` (one per slot of the slice); slots in the result count from 0. */
export const playSlice = (slice: Slice, generator: Generator.Generator, envs: ReadonlyArray<Env.Env>): Promise<E.Either<EnvError.EnvError, Rollout.Result>> =>
  Rollout.run(slice.rollout)(generator)({
    envs,
    seeds: slice.seeds,
    groupSize: slice.groupSize,
    streams: { key: slice.key, firstSlot: slice.firstSlot }
  })()

/** The rollout counters of a result (exact: the rates are ratios of integers it knows). */
export const countersOf = (result: Rollout.Result): RolloutMetrics.Counters => {
  const m = result.metrics
  const pairs = result.episodes.reduce((n, e) => n + Math.max(0, e.trajectory.turns.length - 1), 0)
  return {
    generatedTokens: m.generatedTokens,
    contextTokens: m.contextTokens,
    cutOff: Math.round(m.cutOffRate * m.turns),
    hackingPairs: Math.round(m.actionHackingRate * pairs),
    pairs,
    seconds: m.seconds
  }
}

/** The slice's result: the episodes with their slots counted from the slice's first slot, and the counters. */
export const resultOf = (slice: Slice, played: Rollout.Result, worker: string): Wire.JobResult => ({
  episodes: played.episodes.map((e) => ({ ...e, slot: e.slot + slice.firstSlot })),
  counters: countersOf(played),
  worker
})
