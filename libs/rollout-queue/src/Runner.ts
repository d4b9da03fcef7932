/**
 * Rollouts over the queue: the producer side. Each call publishes the policy as it is now (one
 * version), cuts the iteration's groups into episode jobs, waits for the workers' results and
 * merges them into the `Rollout.Result` a local rollout gives: episodes in slot order, token for
 * token the same for a given seed (per-slot sampling streams; a slot's logits do not depend on
 * which other slots share a batch on the cpu and wasm backends), metrics over the whole iteration.
 *
 * Each job's result is read once, by job id, so an episode is counted once even when its job was
 * retried after a worker died; every slot must come back exactly once or the call fails.
 *
 * @since 0.1.0
 */
import type { EnvError } from '@mtrl/core'
import type { Policy } from '@mtrl/policy'
import { Rollout } from '@mtrl/rollout'
import { Job as BullJob, Queue } from 'bullmq'
import * as E from 'fp-ts/lib/Either.js'
import type { Task } from 'fp-ts/lib/Task.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Redis } from 'ioredis'
import { randomUUID } from 'node:crypto'
import { connect, defaults, within } from './internal/connection.js'
import { collect } from './internal/collect.js'
import * as Jobs from './internal/jobs.js'
import { merge } from './internal/merge.js'
import * as PolicyStore from './PolicyStore.js'
import * as QueueError from './QueueError.js'
import type * as Wire from './Wire.js'

/**
 * - `url`: Redis; `queue`, `prefix`: shared with the workers (defaults `mtrl-rollout`, `mtrl`);
 * - `groupsPerJob`: groups per job (default: the groups split evenly over the live workers);
 * - `attempts`: tries per job, failures and dead workers included (default 3);
 * - `noWorkerTimeoutMs`: how long to wait with no worker listening before failing (default 60 000);
 * - `pollMs`: how often results are looked up (default 20).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly url: string
  readonly queue?: string
  readonly prefix?: string
  readonly groupsPerJob?: number
  readonly attempts?: number
  readonly noWorkerTimeoutMs?: number
  readonly pollMs?: number
}

/**
 * Who played a job, on which attempt.
 *
 * @category models
 * @since 0.1.0
 */
export interface JobReport {
  readonly id: string
  readonly worker: string
  readonly attempts: number
  readonly episodes: number
}

/**
 * A rollout's result plus the jobs it took.
 *
 * @category models
 * @since 0.1.0
 */
export interface Result extends Rollout.Result {
  readonly jobs: ReadonlyArray<JobReport>
}

/**
 * What to play: seeds and group size as for `Rollout.run` (no environments: the workers have
 * theirs), and the sampling randomness.
 *
 * @category models
 * @since 0.1.0
 */
export type Input = { readonly seeds: ReadonlyArray<number>; readonly groupSize: number } & Rollout.Sampling

/**
 * What the workers play: `env`, the environment spec they build (JSON, e.g. a recipe's env
 * entry); the rollout options; the policy (read as it is at each call) and its context length.
 *
 * @category models
 * @since 0.1.0
 */
export interface Episodes {
  readonly env: unknown
  readonly rollout: Rollout.Options
  readonly policy: Policy.Policy
  readonly contextLength: number
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Runner {
  /** Plays one iteration's episodes with the policy as it is now. */
  readonly run: (episodes: Episodes) => (input: Input) => TE.TaskEither<QueueError.QueueError, Result>
  /** The live workers on the queue. */
  readonly workers: () => TE.TaskEither<QueueError.QueueError, number>
  readonly close: () => Task<void>
}

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/** What a connected runner holds: its queue on Redis, its id and its count of calls. */
interface Connected {
  readonly options: Options
  readonly redis: Redis
  readonly queue: Queue
  readonly queueName: string
  /** Prefixes the ids of this runner's policy versions and jobs. */
  readonly runId: string
  /** The number of this call; counts up from 0. */
  readonly nextCall: () => number
  readonly publish: (policy: Policy.Policy, version: string) => TE.TaskEither<QueueError.QueueError, Wire.PolicyRef>
  readonly workers: () => TE.TaskEither<QueueError.QueueError, number>
}

/** The live workers on the queue, within 5 s; `RedisUnavailable` otherwise. */
const countWorkers = (queue: Queue, url: string) => (): TE.TaskEither<QueueError.QueueError, number> => async () => {
  try {
    return E.right(await within(queue.getWorkersCount(), 5_000, 'no answer within 5 s'))
  } catch (e) {
    return E.left(QueueError.redisUnavailable(url, reason(e)))
  }
}

/** Adds the jobs to the queue; `RedisUnavailable` when Redis refuses them. */
const enqueue = async ({ queue, options }: Connected, jobs: ReadonlyArray<Jobs.PendingJob>): Promise<E.Either<QueueError.QueueError, void>> => {
  try {
    return E.right(await Jobs.enqueue(queue, jobs, options.attempts ?? 3))
  } catch (e) {
    return E.left(QueueError.redisUnavailable(options.url, reason(e)))
  }
}

/** Waits for the jobs' results, then removes the jobs and retires the policy version (best effort: neither is needed any more). */
const collectAndClean = async (
  { queue, queueName, options, redis }: Connected,
  jobs: ReadonlyArray<Jobs.PendingJob>,
  policy: Wire.PolicyRef
): ReturnType<typeof collect> => {
  const collected = await collect({
    ids: jobs.map((j) => j.id),
    lookup: (id) => BullJob.fromId(queue, id),
    workers: async () => queue.getWorkersCount(),
    pollMs: options.pollMs ?? 20,
    noWorkerTimeoutMs: options.noWorkerTimeoutMs ?? 60_000,
    queue: queueName,
    url: options.url
  })
  await Promise.allSettled([...jobs.map(({ id }) => queue.remove(id)), PolicyStore.retire(redis)(policy)()])
  return collected
}

/**
 * `Runner.run`: publishes the policy (its weights as they are at the call), cuts the groups into
 * jobs (split over the live workers unless `groupsPerJob`), plays and merges them.
 */
const run =
  (connected: Connected) =>
  ({ env, rollout, policy, contextLength }: Episodes) =>
  (input: Input): TE.TaskEither<QueueError.QueueError, Result> =>
  async () => {
    const started = performance.now()
    const streams = Rollout.streamsOf(input)
    const call = connected.nextCall()
    const idPrefix = `${connected.runId}-${call}`
    // the weights as they are at the call (encoded before the first await): a trainer that plays ahead updates meanwhile
    const publishing = connected.publish(policy, idPrefix)()
    const alive = await connected.workers()()
    const published = await publishing
    if (E.isLeft(alive)) {
      if (E.isRight(published)) await PolicyStore.retire(connected.redis)(published.right)()
      return alive
    }
    if (E.isLeft(published)) return published
    const groups = input.seeds.length
    const perJob = Math.max(1, connected.options.groupsPerJob ?? Math.ceil(groups / Math.max(1, alive.right)))
    const { seeds, groupSize } = input
    const jobs = Jobs.cut({ idPrefix, policy: published.right, env, rollout, contextLength, seeds, groupSize, streams }, perJob)
    const enqueued = await enqueue(connected, jobs)
    if (E.isLeft(enqueued)) return enqueued
    const collected = await collectAndClean(connected, jobs, published.right)
    if (E.isLeft(collected)) return collected
    return merge(collected.right, { firstSlot: streams.firstSlot, slots: groups * groupSize }, started)
  }

/**
 * Connects to Redis (a PING must answer) and returns a runner.
 *
 * @example
 * import { Runner } from '@mtrl/rollout-queue'
 * import { Rng } from '@mtrl/core'
 * declare const policy: import('@mtrl/policy').Policy.Policy
 * const runner = await Runner.make({ url: 'redis://127.0.0.1:6379' })()
 * const env = { kind: 'textworld', settings: 'w2-o3-q4' }
 * // runner.right.run({ env, rollout: Rollout.defaultOptions, policy, contextLength: 512 })({ seeds: [1, 2], groupSize: 4, rng: Rng.make(0) })
 *
 * @category constructors
 * @since 0.1.0
 */
export const make =
  (options: Options): TE.TaskEither<QueueError.QueueError, Runner> =>
  async () => {
    const connected = await connect(options.url)()
    if (E.isLeft(connected)) return connected
    const redis: Redis = connected.right
    const queueName = options.queue ?? defaults.queue
    const prefix = options.prefix ?? defaults.prefix
    const queue = new Queue(queueName, { connection: redis, prefix })
    queue.on('error', () => undefined)
    const runId = randomUUID().slice(0, 8)
    const publish = PolicyStore.publish({ prefix })(redis)
    let calls = 0
    const nextCall = (): number => calls++
    const workers = countWorkers(queue, options.url)
    return E.right({
      run: run({ options, redis, queue, queueName, runId, nextCall, publish, workers }),
      workers,
      close: () => async () => {
        await queue.close().catch(() => undefined)
        redis.disconnect()
      }
    })
  }

/**
 * The runner as a trainer's rollout (`Trainer.Setup.runner`): the same input as `Rollout.run`
 * (its `envs` are not used: the workers build theirs from the spec), errors as `EnvError`s
 * (`QueueError.toEnvError`), the policy read as it is at each call.
 *
 * @category combinators
 * @since 0.1.0
 */
export const asRollout =
  (runner: Runner, episodes: Episodes & { readonly envName: string }) =>
  (input: Rollout.Input): TE.TaskEither<EnvError.EnvError, Rollout.Result> =>
  async () => {
    const played = await runner.run(episodes)(input)()
    return E.isLeft(played) ? E.left(QueueError.toEnvError(episodes.envName)(played.left)) : played
  }
