/**
 * Cutting one iteration's groups into episode jobs, and adding them to the queue.
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

/**
 * The batch's groups cut into jobs of `perJob` groups each (the last may have fewer), in seed
 * order; job `j`'s first slot follows the slots of the groups before it.
 */
export const cut = (batch: Batch, perJob: number): ReadonlyArray<PendingJob> => {
  const jobs: Array<PendingJob> = []
  for (let g = 0; g < batch.seeds.length; g += perJob) {
    jobs.push({
      id: `${batch.idPrefix}-${jobs.length}`,
      data: {
        version: 1,
        policy: batch.policy,
        env: batch.env,
        rollout: batch.rollout,
        contextLength: batch.contextLength,
        groupSize: batch.groupSize,
        seeds: batch.seeds.slice(g, g + perJob),
        firstSlot: batch.streams.firstSlot + g * batch.groupSize,
        key: batch.streams.key
      }
    })
  }
  return jobs
}

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
