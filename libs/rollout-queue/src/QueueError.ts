/**
 * What can go wrong when episodes are played over the queue, as values.
 *
 * @since 0.1.0
 */
import { EnvError } from '@mtrl/core'

/**
 * - `RedisUnavailable`: Redis cannot be reached (or started);
 * - `NoWorkers`: no worker has listened to the queue for `waitedMs`;
 * - `JobFailed`: a job failed on its last attempt (`reason` as the worker reported it);
 * - `EnvFailed`: an environment failed in a worker on the last attempt (the environment's error);
 * - `BadMessage`: a job or result did not decode (`path: expected` issues);
 * - `PolicyMissing`: the policy version a job names is not in Redis (expired, or Redis lost it).
 *
 * @category models
 * @since 0.1.0
 */
export type QueueError =
  | { readonly _tag: 'RedisUnavailable'; readonly url: string; readonly reason: string }
  | { readonly _tag: 'NoWorkers'; readonly queue: string; readonly url: string; readonly waitedMs: number }
  | { readonly _tag: 'JobFailed'; readonly job: string; readonly attempts: number; readonly reason: string }
  | { readonly _tag: 'EnvFailed'; readonly job: string; readonly error: EnvError.EnvError }
  | { readonly _tag: 'BadMessage'; readonly what: string; readonly reason: string }
  | { readonly _tag: 'PolicyMissing'; readonly key: string }

/** @category constructors @since 0.1.0 */
export const redisUnavailable = (url: string, reason: string): QueueError => ({ _tag: 'RedisUnavailable', url, reason })
/** @category constructors @since 0.1.0 */
export const noWorkers = (queue: string, url: string, waitedMs: number): QueueError => ({ _tag: 'NoWorkers', queue, url, waitedMs })
/** @category constructors @since 0.1.0 */
export const jobFailed = (job: string, attempts: number, reason: string): QueueError => ({ _tag: 'JobFailed', job, attempts, reason })
/** @category constructors @since 0.1.0 */
export const envFailed = (job: string, error: EnvError.EnvError): QueueError => ({ _tag: 'EnvFailed', job, error })
/** @category constructors @since 0.1.0 */
export const badMessage = (what: string, reason: string): QueueError => ({ _tag: 'BadMessage', what, reason })
/** @category constructors @since 0.1.0 */
export const policyMissing = (key: string): QueueError => ({ _tag: 'PolicyMissing', key })

/**
 * A one-line description that says what to do.
 *
 * @category destructors
 * @since 0.1.0
 */
export const message = (error: QueueError): string => {
  switch (error._tag) {
    case 'RedisUnavailable':
      return `Redis at ${error.url} is not reachable: ${error.reason} (is redis-server running there?)`
    case 'NoWorkers':
      return `no worker has listened to queue "${error.queue}" at ${error.url} for ${(error.waitedMs / 1000).toFixed(0)} s; start one with: mtrl worker --redis ${error.url}`
    case 'JobFailed':
      return `episode job ${error.job} failed after ${error.attempts} attempt(s): ${error.reason}`
    case 'EnvFailed':
      return `episode job ${error.job}: ${EnvError.message(error.error)}`
    case 'BadMessage':
      return `${error.what} did not decode: ${error.reason}`
    case 'PolicyMissing':
      return `policy weights ${error.key} are not in Redis (expired, or Redis restarted since they were published)`
  }
}

/**
 * The error as an environment error, for callers whose error type is `EnvError` (a trainer's
 * rollout): environment failures stay themselves, the rest become `Transport` failures of the
 * queue, with {@link message} as the reason.
 *
 * @category destructors
 * @since 0.1.0
 */
export const toEnvError =
  (env: string) =>
  (error: QueueError): EnvError.EnvError =>
    error._tag === 'EnvFailed' ? error.error : EnvError.transport(env, 'the rollout queue', message(error))
