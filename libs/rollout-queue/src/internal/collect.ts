/**
 * Waiting for a batch of jobs: polls each pending job by id until it completes (its result is
 * decoded once) or fails for good; fails early when no worker has listened for a while, or when
 * a job vanished (Redis lost it).
 */
import { Decode } from '@mtrl/core'
import type { Job } from 'bullmq'
import * as E from 'fp-ts/lib/Either.js'
import * as QueueError from '../QueueError.js'
import * as Wire from '../Wire.js'

export interface Collected {
  readonly id: string
  readonly attempts: number
  readonly result: Wire.JobResult
}

export interface Options {
  readonly ids: ReadonlyArray<string>
  readonly lookup: (id: string) => Promise<Job | undefined>
  readonly workers: () => Promise<number>
  readonly pollMs: number
  readonly noWorkerTimeoutMs: number
  readonly queue: string
  readonly url: string
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The environment error a worker reported, when the failure was one. */
const envErrorOf = (reason: string): unknown => {
  try {
    const parsed = JSON.parse(reason) as { _tag?: unknown; error?: unknown }
    return parsed._tag === 'EnvFailed' ? parsed.error : undefined
  } catch {
    return undefined
  }
}

export const collect = async (options: Options): Promise<E.Either<QueueError.QueueError, ReadonlyArray<Collected>>> => {
  const done = new Map<string, Collected>()
  let lonely = 0
  let lastCheck = 0
  for (;;) {
    try {
      for (const id of options.ids) {
        if (done.has(id)) continue
        const job = await options.lookup(id)
        if (job === undefined) return E.left(QueueError.jobFailed(id, 0, 'the job is gone from Redis (was Redis restarted during the iteration?)'))
        if (job.finishedOn === undefined) continue
        // a job completed after a failed attempt keeps that attempt's failedReason: ask its state
        if ((await job.getState()) === 'completed') {
          const result = Decode.decode(`result of job ${id}`, Wire.JobResult)(job.returnvalue)
          if (E.isLeft(result)) return E.left(QueueError.badMessage(`result of job ${id}`, Decode.formatError(result.left)))
          done.set(id, { id, attempts: job.attemptsMade, result: result.right })
        } else {
          const error = envErrorOf(job.failedReason)
          return E.left(error === undefined ? QueueError.jobFailed(id, job.attemptsMade, job.failedReason) : QueueError.envFailed(id, error as never))
        }
      }
      if (done.size === options.ids.length) return E.right(options.ids.map((id) => done.get(id)!))
      const now = performance.now()
      if (now - lastCheck >= 1_000) {
        const previous = lastCheck
        lastCheck = now
        if ((await options.workers()) > 0) lonely = 0
        else if (previous > 0) lonely += now - previous
        if (lonely >= options.noWorkerTimeoutMs) return E.left(QueueError.noWorkers(options.queue, options.url, lonely))
      }
    } catch (e) {
      return E.left(QueueError.redisUnavailable(options.url, e instanceof Error ? e.message : String(e)))
    }
    await sleep(options.pollMs)
  }
}
