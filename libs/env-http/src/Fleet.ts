/**
 * Rollouts over many environment servers: episodes (one per seed) are spread over a list of
 * base URLs, `slotsPerServer` at a time on each, with any agent. A server that dies is retired
 * (a failed episode triggers a health probe, `GET /`); its episodes are retried on the others.
 * Nothing is dropped silently: every seed ends `Played` or `Failed`, with every failed attempt
 * listed, and the report counts the retries.
 *
 * @since 0.1.0
 */
import type { Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Task } from 'fp-ts/lib/Task.js'
import * as Episode from './Episode.js'
import * as HttpEnv from './HttpEnv.js'
import { probe } from './internal/probe.js'

/**
 * - `urls`: the servers' base URLs;
 * - `agent`: chooses actions from the history (`(history) => Promise<string>`);
 * - `slotsPerServer`: episodes at once on each server (default 4);
 * - `maxAttempts`: tries per seed before it is `Failed` (default 3);
 * - `client`: HttpEnv settings for every server (family, timeouts, token ...);
 * - `episode`: `Episode.play` options; `probeTimeoutMs`: the health probe's patience (default 2 000).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly urls: ReadonlyArray<string>
  readonly agent: Episode.Agent
  readonly slotsPerServer?: number
  readonly maxAttempts?: number
  readonly client?: Omit<HttpEnv.Options, 'baseUrl'>
  readonly episode?: Episode.Options
  readonly probeTimeoutMs?: number
}

/** A failed try of one seed. @category models @since 0.1.0 */
export interface Attempt {
  readonly server: string
  readonly reason: string
}

/**
 * The fate of one seed. `attempts` lists the failed tries (for `Played`, those before the last).
 *
 * @category models
 * @since 0.1.0
 */
export type Outcome =
  | { readonly _tag: 'Played'; readonly seed: number; readonly server: string; readonly episode: Episode.Episode; readonly attempts: ReadonlyArray<Attempt> }
  | { readonly _tag: 'Failed'; readonly seed: number; readonly attempts: ReadonlyArray<Attempt> }

/** @category models @since 0.1.0 */
export interface ServerReport {
  readonly url: string
  readonly played: number
  readonly failedAttempts: number
  /** Why the server was retired, when it was. */
  readonly retired: string | undefined
}

/**
 * Outcomes in the order of the seeds; `retried` counts tries that were made again.
 *
 * @category models
 * @since 0.1.0
 */
export interface Report {
  readonly outcomes: ReadonlyArray<Outcome>
  readonly played: number
  readonly failed: number
  readonly retried: number
  readonly servers: ReadonlyArray<ServerReport>
}

interface Job {
  readonly index: number
  readonly seed: number
  readonly attempts: Attempt[]
}

interface Server {
  readonly url: string
  played: number
  failedAttempts: number
  retired: string | undefined
}

/** The shared state of one run: the seeds waiting, their outcomes, the slots at work and those waiting for work. */
interface Schedule {
  readonly options: Options
  readonly maxAttempts: number
  readonly play: ReturnType<ReturnType<typeof Episode.play>>
  readonly queue: Job[]
  readonly outcomes: Array<Outcome | undefined>
  inFlight: number
  retried: number
  wake: Array<() => void>
}

/** Wakes every slot waiting for work. */
const signal = (schedule: Schedule): void => {
  const waiting = schedule.wake
  schedule.wake = []
  waiting.forEach((resolve) => resolve())
}

/** Retires the server with `reason` unless its health probe (`GET /`) answers. */
const retire = async (options: Options, server: Server, reason: string): Promise<void> => {
  if (server.retired === undefined && !(await probe(server.url, options.probeTimeoutMs ?? 2_000, options.client?.token))) server.retired = reason
}

/** Records a failed try of the job on the server. */
const failAttempt = (job: Job, server: Server, reason: string): void => {
  job.attempts.push({ server: server.url, reason })
  server.failedAttempts += 1
}

/** A client of the server, or `undefined` when it cannot connect (the try then failed and the server is probed). */
const connectTo = async (options: Options, server: Server, job: Job): Promise<Env.Env | undefined> => {
  const connected = await HttpEnv.connect({ ...options.client, baseUrl: server.url })()
  if (E.isRight(connected)) return connected.right
  failAttempt(job, server, Episode.message(connected.left))
  await retire(options, server, Episode.message(connected.left))
  return undefined
}

/**
 * Plays the job's seed on `env`. Returns the client to keep using, or `undefined` when the
 * episode failed: the client is then closed, and the server probed after a transport failure or
 * a timeout.
 */
const playOn = async (schedule: Schedule, server: Server, job: Job, env: Env.Env): Promise<Env.Env | undefined> => {
  const played = await schedule.play(env, job.seed)()
  if (E.isRight(played)) {
    schedule.outcomes[job.index] = { _tag: 'Played', seed: job.seed, server: server.url, episode: played.right, attempts: job.attempts }
    server.played += 1
    return env
  }
  const reason = Episode.message(played.left)
  failAttempt(job, server, reason)
  await env.close()()
  if (played.left._tag === 'Transport' || played.left._tag === 'Timeout') await retire(schedule.options, server, reason)
  return undefined
}

/** After a failed try: the seed is `Failed` once it has used its attempts, otherwise back at the end of the queue. */
const settle = (schedule: Schedule, job: Job): void => {
  if (schedule.outcomes[job.index] !== undefined) return
  if (job.attempts.length >= schedule.maxAttempts) schedule.outcomes[job.index] = { _tag: 'Failed', seed: job.seed, attempts: job.attempts }
  else {
    schedule.retried += 1
    schedule.queue.push(job)
  }
}

/** One slot on a server: plays queued seeds, one at a time, until none is left or playing, or the server is retired. */
const slot = async (schedule: Schedule, server: Server): Promise<void> => {
  let env: Env.Env | undefined
  for (;;) {
    if (server.retired !== undefined) break
    const job = schedule.queue.shift()
    if (job === undefined) {
      if (schedule.inFlight === 0) break
      await new Promise<void>((resolve) => schedule.wake.push(resolve))
      continue
    }
    schedule.inFlight += 1
    if (env === undefined) env = await connectTo(schedule.options, server, job)
    if (env !== undefined) env = await playOn(schedule, server, job, env)
    settle(schedule, job)
    schedule.inFlight -= 1
    signal(schedule)
  }
  if (env !== undefined) await env.close()()
  signal(schedule)
}

/** The report once every slot has stopped: seeds still queued (every server retired) or never scheduled are `Failed`. */
const reportOf = (seeds: ReadonlyArray<number>, servers: ReadonlyArray<Server>, schedule: Schedule): Report => {
  for (const job of schedule.queue)
    schedule.outcomes[job.index] = { _tag: 'Failed', seed: job.seed, attempts: [...job.attempts, { server: '(none)', reason: 'no live server left' }] }
  const all = schedule.outcomes.map((o, i): Outcome => o ?? { _tag: 'Failed', seed: seeds[i]!, attempts: [{ server: '(none)', reason: 'never scheduled' }] })
  const played = all.filter((o) => o._tag === 'Played').length
  return {
    outcomes: all,
    played,
    failed: all.length - played,
    retried: schedule.retried,
    servers: servers.map((s) => ({ url: s.url, played: s.played, failedAttempts: s.failedAttempts, retired: s.retired }))
  }
}

/**
 * Plays one episode per seed over the servers and reports every seed's outcome.
 *
 * @example
 * import { Fleet } from '@mtrl/env-http'
 * const report = await Fleet.run({ urls: ['http://10.0.0.2:8000', 'http://10.0.0.3:8000'], agent })([1, 2, 3])()
 * // report.played === 3 unless a seed failed maxAttempts times
 *
 * @category constructors
 * @since 0.1.0
 */
export const run =
  (options: Options) =>
  (seeds: ReadonlyArray<number>): Task<Report> =>
  async () => {
    const schedule: Schedule = {
      options,
      maxAttempts: options.maxAttempts ?? 3,
      play: Episode.play(options.episode)(options.agent),
      queue: seeds.map((seed, index) => ({ index, seed, attempts: [] })),
      outcomes: new Array<Outcome | undefined>(seeds.length),
      inFlight: 0,
      retried: 0,
      wake: []
    }
    const servers: Server[] = options.urls.map((url) => ({ url, played: 0, failedAttempts: 0, retired: undefined }))
    await Promise.all(servers.flatMap((server) => Array.from({ length: options.slotsPerServer ?? 4 }, () => slot(schedule, server))))
    return reportOf(seeds, servers, schedule)
  }
