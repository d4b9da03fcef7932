/**
 * A rollout worker: takes episode jobs from the queue, loads the policy version each names
 * (once per version, {@link PolicyStore.cache}), plays the job's episode slots token-in-token-out
 * with `Rollout.run` on its own sampler and environments, and returns the episodes exactly as a
 * local rollout of the whole iteration plays those slots (same per-slot sampling streams).
 *
 * Fault handling is BullMQ's: a worker that dies mid-job stops renewing the job's lock, and a
 * live worker's stalled-job check puts the job back in the queue after `lockDurationMs`; a job
 * that throws is retried up to the attempts its producer set. Environment failures are retried
 * the same way and reported as the environment's error on the last attempt.
 *
 * @since 0.1.0
 */
import type { Env } from '@mtrl/core'
import { Worker as BullWorker } from 'bullmq'
import * as E from 'fp-ts/lib/Either.js'
import type { Task } from 'fp-ts/lib/Task.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { Redis } from 'ioredis'
import { hostname } from 'node:os'
import { connect, defaults } from './internal/connection.js'
import * as Play from './internal/play.js'
import { cachedSources as internalCachedSources, envPool } from './internal/envPool.js'
import * as PolicyStore from './PolicyStore.js'
import * as QueueError from './QueueError.js'

/**
 * Builds environments from a job's env spec (the JSON its producer sent): a factory, or why not.
 *
 * @category models
 * @since 0.1.0
 */
export type EnvResolver = (spec: unknown) => E.Either<string, Env.EnvFactory>

/**
 * An {@link EnvResolver} from a decoder of env specs to environment sources, building one source
 * per distinct spec (compared as JSON) and reusing it for later jobs; `dispose` disposes them all.
 *
 * @example
 * import { Worker } from '@mtrl/rollout-queue'
 * import { Settings, TextWorld } from '@mtrl/env-textworld'
 * import * as E from 'fp-ts/lib/Either.js'
 * const cached = Worker.cachedSources((spec) => (typeof spec === 'string' ? E.right(TextWorld.source(spec)) : E.left('expected a settings string')))
 *
 * @category constructors
 * @since 0.1.0
 */
export const cachedSources: (decode: (spec: unknown) => E.Either<string, Env.EnvSource>) => { readonly envs: EnvResolver; readonly dispose: () => void } =
  internalCachedSources

/**
 * What a worker reports as it goes (libs never log; the app prints these).
 *
 * @category models
 * @since 0.1.0
 */
export type Event =
  | { readonly _tag: 'Started'; readonly job: string; readonly attempt: number; readonly episodes: number }
  | { readonly _tag: 'Finished'; readonly job: string; readonly episodes: number; readonly seconds: number; readonly tokensPerSecond: number }
  | { readonly _tag: 'Failed'; readonly job: string; readonly reason: string }

/**
 * A worker's event as one line: `job J: 8 episodes (attempt 1)`, `job J: done in 2.1 s (340
 * generated tok/s)`, `job J: failed: REASON`.
 *
 * @category destructors
 * @since 0.7.0
 */
export const describe = (event: Event): string => {
  switch (event._tag) {
    case 'Started':
      return `job ${event.job}: ${event.episodes} episodes (attempt ${event.attempt})`
    case 'Finished':
      return `job ${event.job}: done in ${event.seconds.toFixed(1)} s (${event.tokensPerSecond.toFixed(0)} generated tok/s)`
    case 'Failed':
      return `job ${event.job}: failed: ${event.reason}`
  }
}

/**
 * - `url`: Redis (`redis://host:port`); `queue`, `prefix`: as the producer's;
 * - `envs`: builds the environments jobs name;
 * - `concurrency`: jobs at once in this process (default 1: sampling is synchronous, so more
 *   only helps when environments are slow and remote);
 * - `name`: this worker's name in results (default `host:pid`);
 * - `lockDurationMs`: how long a job stays taken without a sign of life (default 30 000);
 *   `stalledIntervalMs`: how often this worker looks for such jobs (default 15 000);
 * - `onEvent`: progress reports.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly url: string
  readonly envs: EnvResolver
  readonly queue?: string
  readonly prefix?: string
  readonly concurrency?: number
  readonly name?: string
  readonly lockDurationMs?: number
  readonly stalledIntervalMs?: number
  readonly onEvent?: (event: Event) => void
}

/**
 * A running worker: its name, the jobs it finished, and `close` (finishes the jobs in hand,
 * then disconnects and frees the policies and environments).
 *
 * @category models
 * @since 0.1.0
 */
export interface RunningWorker {
  readonly name: string
  readonly finished: () => number
  readonly close: () => Task<void>
}

/**
 * Starts a worker. Resolves once it is connected and listening; a Redis it cannot reach is a
 * `RedisUnavailable` error.
 *
 * @example
 * import { Worker } from '@mtrl/rollout-queue'
 * import { TextWorld, Settings } from '@mtrl/env-textworld'
 * import * as E from 'fp-ts/lib/Either.js'
 * const worker = await Worker.start({ url: 'redis://10.0.0.1:6379', envs: () => E.right(() => TextWorld.make(Settings.custom(2, 3, 4))) })()
 *
 * @category constructors
 * @since 0.1.0
 */
export const start =
  (options: Options): TE.TaskEither<QueueError.QueueError, RunningWorker> =>
  async () => {
    const queue = options.queue ?? defaults.queue
    const prefix = options.prefix ?? defaults.prefix
    const name = options.name ?? `${hostname()}:${process.pid}`
    const report = options.onEvent ?? (() => undefined)
    const store = await connect(options.url)()
    if (E.isLeft(store)) return store
    const redis: Redis = store.right
    const policies = PolicyStore.cache(redis)
    const envs = envPool(options.envs)
    let finished = 0

    const play = Play.play({
      name,
      report,
      policies,
      envs,
      onFinished: () => {
        finished += 1
      }
    })

    const worker = new BullWorker(queue, play, {
      connection: { url: options.url, maxRetriesPerRequest: null },
      prefix,
      name,
      concurrency: options.concurrency ?? 1,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 15_000,
      maxStalledCount: 3
    })
    worker.on('error', () => undefined) // connection errors: ioredis reconnects; jobs report their own failures
    try {
      await worker.waitUntilReady()
    } catch (e) {
      redis.disconnect()
      return E.left(QueueError.redisUnavailable(options.url, e instanceof Error ? e.message : String(e)))
    }
    return E.right({
      name,
      finished: () => finished,
      close: () => async () => {
        await worker.close()
        policies.dispose()
        await envs.close()
        redis.disconnect()
      }
    })
  }
