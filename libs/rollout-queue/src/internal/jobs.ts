/**
 * Cutting one iteration's groups into parts (episode jobs for the queue, shares for rollout
 * threads), and adding jobs to the queue.
 */
import type { Rollout } from '@mtrl/rollout'
import type { Queue } from 'bullmq'
import type * as Wire from '../Wire.js'

/** A job to add: its id (unique per runner, call and job) and its payload. */
export interface PendingJob {
  readonly id: string
  readonly data: Wire.Job
}

/** What every job of one call shares: what to play, with which policy, from which sampling streams. */
export interface Batch {
  /** The prefix of the jobs' ids: `<runId>-<call>`. */
  readonly idPrefix: string
  readonly policy: Wire.PolicyRef
  readonly env: unknown
  readonly rollout: Rollout.Options
  readonly contextLength: number
  readonly seeds: ReadonlyArray<number>
  readonly groupSize: number
  readonly streams: Rollout.Streams
}

/** Consecutive groups of an iteration: their seeds, and the iteration's slot of their first episode. */
export interface Part {
  readonly seeds: ReadonlyArray<number>
  readonly firstSlot: number
}

/**
 * The groups of `seeds` (of `groupSize` slots each, the first at slot `firstSlot`) cut into
 * consecutive parts of `sizes[i]` groups, in seed order (empty parts are left out); a part's first
 * slot follows the slots of the groups before it.
 */
export const parts = (seeds: ReadonlyArray<number>, groupSize: number, firstSlot: number, sizes: ReadonlyArray<number>): ReadonlyArray<Part> => {
  const out: Array<Part> = []
  let g = 0
  for (const size of sizes) {
    if (size > 0) out.push({ seeds: seeds.slice(g, g + size), firstSlot: firstSlot + g * groupSize })
    g += size
  }
  return out
}

/** `groups` groups in parts of `perJob` (the last may have fewer). */
export const chunks = (groups: number, perJob: number): ReadonlyArray<number> =>
  Array.from({ length: Math.ceil(groups / perJob) }, (_, j) => Math.min(perJob, groups - j * perJob))

/** `groups` groups as evenly as possible in `n` parts, the larger first (`[3, 2]` for 5 in 2). */
export const even = (groups: number, n: number): ReadonlyArray<number> => Array.from({ length: n }, (_, i) => Math.floor(groups / n) + (i < groups % n ? 1 : 0))

/**
 * The batch's groups cut into jobs of `perJob` groups each (the last may have fewer), in seed
 * order; job `j`'s first slot follows the slots of the groups before it.
 */
export const cut = (batch: Batch, perJob: number): ReadonlyArray<PendingJob> =>
  parts(batch.seeds, batch.groupSize, batch.streams.firstSlot, chunks(batch.seeds.length, perJob)).map((part, j) => ({
    id: `${batch.idPrefix}-${j}`,
    data: {
      version: 1,
      policy: batch.policy,
      env: batch.env,
      rollout: batch.rollout,
      contextLength: batch.contextLength,
      groupSize: batch.groupSize,
      seeds: part.seeds,
      firstSlot: part.firstSlot,
      key: batch.streams.key
    }
  }))

/** Adds the jobs to the queue, each tried up to `attempts` times, kept after it ends so its result can be read. */
export const enqueue = async (queue: Queue, jobs: ReadonlyArray<PendingJob>, attempts: number): Promise<void> => {
  await queue.addBulk(
    jobs.map(({ id, data }) => ({
      name: 'episodes',
      data,
      opts: { jobId: id, attempts, backoff: { type: 'fixed', delay: 100 }, removeOnComplete: false, removeOnFail: false }
    }))
  )
}
