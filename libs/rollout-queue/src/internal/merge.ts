/**
 * Merging the jobs' results into one rollout's result: every slot's first episode exactly once,
 * episodes in slot order, counters summed over the jobs.
 */
import { RolloutMetrics } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import * as QueueError from '../QueueError.js'
import type { Result } from '../Runner.js'
import type * as Wire from '../Wire.js'
import type { Collected } from './collect.js'

/** Which slots the results must cover: `firstSlot` up to `firstSlot + slots - 1`. */
export interface Slots {
  readonly firstSlot: number
  readonly slots: number
}

/** The episodes, or `BadMessage` unless each slot's first episode came back once and no episode is outside the slots. */
const checked = (episodes: ReadonlyArray<Wire.JobResult['episodes'][number]>, { firstSlot, slots }: Slots) => {
  const seen = new Set(episodes.filter((e) => e.index === 0).map((e) => e.slot))
  return seen.size !== slots || episodes.some((e) => e.slot < firstSlot || e.slot >= firstSlot + slots)
    ? E.left(QueueError.badMessage('the results', `expected the first episode of each of slots ${firstSlot}..${firstSlot + slots - 1} once`))
    : E.right(episodes)
}

/** The counters summed over the jobs, with `seconds` the time since `started` (a `performance.now()`). */
const summedCounters = (collected: ReadonlyArray<Collected>, started: number): Wire.JobResult['counters'] => {
  const sum = (f: (c: Wire.JobResult['counters']) => number): number => collected.reduce((n, r) => n + f(r.result.counters), 0)
  return {
    generatedTokens: sum((c) => c.generatedTokens),
    contextTokens: sum((c) => c.contextTokens),
    cutOff: sum((c) => c.cutOff),
    hackingPairs: sum((c) => c.hackingPairs),
    pairs: sum((c) => c.pairs),
    seconds: (performance.now() - started) / 1000
  }
}

/** The rollout's result from the collected jobs: slots renumbered from 0, sorted by slot then episode index. */
export const merge = (collected: ReadonlyArray<Collected>, slots: Slots, started: number): E.Either<QueueError.QueueError, Result> => {
  const episodes = checked(
    collected.flatMap((r) => r.result.episodes),
    slots
  )
  if (E.isLeft(episodes)) return episodes
  const ordered = episodes.right.map((e) => ({ ...e, slot: e.slot - slots.firstSlot })).sort((a, b) => a.slot - b.slot || a.index - b.index)
  const metrics = RolloutMetrics.summarize(
    ordered.map((e) => e.trajectory),
    summedCounters(collected, started)
  )
  return E.right({
    episodes: ordered,
    metrics,
    jobs: collected.map((r) => ({ id: r.id, worker: r.result.worker, attempts: r.attempts, episodes: r.result.episodes.length }))
  })
}
