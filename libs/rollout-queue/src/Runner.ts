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
import { Rollout, RolloutMetrics } from '@mtrl/rollout'
import { Job as BullJob, Queue } from 'bullmq'
import * as E from 'fp-ts/lib/Either.js'
import type { Task } from 'fp-ts/lib/Task.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Redis } from 'ioredis'
import { randomUUID } from 'node:crypto'
import { connect, defaults, within } from './internal/connection.js'
import { collect } from './internal/collect.js'
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

    const workers = (): TE.TaskEither<QueueError.QueueError, number> => async () => {
      try {
        return E.right(await within(queue.getWorkersCount(), 5_000, 'no answer within 5 s'))
      } catch (e) {
        return E.left(QueueError.redisUnavailable(options.url, reason(e)))
      }
    }

    const run =
      ({ env, rollout, policy, contextLength }: Episodes) =>
      (input: Input): TE.TaskEither<QueueError.QueueError, Result> =>
      async () => {
        const started = performance.now()
        const streams = Rollout.streamsOf(input)
        const call = calls++
        const alive = await workers()()
        if (E.isLeft(alive)) return alive
        const groups = input.seeds.length
        const perJob = Math.max(1, options.groupsPerJob ?? Math.ceil(groups / Math.max(1, alive.right)))
        const published = await publish(policy, `${runId}-${call}`)()
        if (E.isLeft(published)) return published
        const jobs: Array<{ readonly id: string; readonly data: Wire.Job }> = []
        for (let g = 0; g < groups; g += perJob) {
          const seeds = input.seeds.slice(g, g + perJob)
          jobs.push({
            id: `${runId}-${call}-${jobs.length}`,
            data: {
              version: 1,
              policy: published.right,
              env,
              rollout,
              contextLength,
              groupSize: input.groupSize,
              seeds,
              firstSlot: streams.firstSlot + g * input.groupSize,
              key: streams.key
            }
          })
        }
        const attempts = options.attempts ?? 3
        try {
          await queue.addBulk(
            jobs.map(({ id, data }) => ({
              name: 'episodes',
              data,
              opts: { jobId: id, attempts, backoff: { type: 'fixed', delay: 100 }, removeOnComplete: false, removeOnFail: false }
            }))
          )
        } catch (e) {
          return E.left(QueueError.redisUnavailable(options.url, reason(e)))
        }
        const collected = await collect({
          ids: jobs.map((j) => j.id),
          lookup: (id) => BullJob.fromId(queue, id),
          workers: async () => queue.getWorkersCount(),
          pollMs: options.pollMs ?? 20,
          noWorkerTimeoutMs: options.noWorkerTimeoutMs ?? 60_000,
          queue: queueName,
          url: options.url
        })
        // Best effort: the jobs and this version's weights are no longer needed.
        await Promise.allSettled([...jobs.map(({ id }) => queue.remove(id)), PolicyStore.retire(redis)(published.right)()])
        if (E.isLeft(collected)) return collected
        const episodes = collected.right.flatMap((r) => r.result.episodes)
        const slots = groups * input.groupSize
        const seen = new Set(episodes.filter((e) => e.index === 0).map((e) => e.slot))
        if (seen.size !== slots || episodes.some((e) => e.slot < streams.firstSlot || e.slot >= streams.firstSlot + slots))
          return E.left(
            QueueError.badMessage('the results', `expected the first episode of each of slots ${streams.firstSlot}..${streams.firstSlot + slots - 1} once`)
          )
        const ordered = episodes.map((e) => ({ ...e, slot: e.slot - streams.firstSlot })).sort((a, b) => a.slot - b.slot || a.index - b.index)
        const sum = (f: (c: Wire.JobResult['counters']) => number): number => collected.right.reduce((n, r) => n + f(r.result.counters), 0)
        const metrics = RolloutMetrics.summarize(
          ordered.map((e) => e.trajectory),
          {
            generatedTokens: sum((c) => c.generatedTokens),
            contextTokens: sum((c) => c.contextTokens),
            cutOff: sum((c) => c.cutOff),
            hackingPairs: sum((c) => c.hackingPairs),
            pairs: sum((c) => c.pairs),
            seconds: (performance.now() - started) / 1000
          }
        )
        return E.right({
          episodes: ordered,
          metrics,
          jobs: collected.right.map((r) => ({ id: r.id, worker: r.result.worker, attempts: r.attempts, episodes: r.result.episodes.length }))
        })
      }

    return E.right({
      run,
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
