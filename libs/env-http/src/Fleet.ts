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
    const maxAttempts = options.maxAttempts ?? 3
    const play = Episode.play(options.episode)(options.agent)
    const servers: Server[] = options.urls.map((url) => ({ url, played: 0, failedAttempts: 0, retired: undefined }))
    const queue: Job[] = seeds.map((seed, index) => ({ index, seed, attempts: [] }))
    const outcomes = new Array<Outcome | undefined>(seeds.length)
    let inFlight = 0
    let retried = 0
    let wake: Array<() => void> = []
    const signal = (): void => {
      const waiting = wake
      wake = []
      waiting.forEach((resolve) => resolve())
    }

    const retire = async (server: Server, reason: string): Promise<void> => {
      if (server.retired === undefined && !(await probe(server.url, options.probeTimeoutMs ?? 2_000, options.client?.token))) server.retired = reason
    }

    const slot = async (server: Server): Promise<void> => {
      let env: Env.Env | undefined
      for (;;) {
        if (server.retired !== undefined) break
        const job = queue.shift()
        if (job === undefined) {
          if (inFlight === 0) break
          await new Promise<void>((resolve) => wake.push(resolve))
          continue
        }
        inFlight += 1
        if (env === undefined) {
          const connected = await HttpEnv.connect({ ...options.client, baseUrl: server.url })()
          env = E.isRight(connected) ? connected.right : undefined
          if (E.isLeft(connected)) {
            job.attempts.push({ server: server.url, reason: Episode.message(connected.left) })
            server.failedAttempts += 1
            await retire(server, Episode.message(connected.left))
          }
        }
        if (env !== undefined) {
          const played = await play(env, job.seed)()
          if (E.isRight(played)) {
            outcomes[job.index] = { _tag: 'Played', seed: job.seed, server: server.url, episode: played.right, attempts: job.attempts }
            server.played += 1
          } else {
            const reason = Episode.message(played.left)
            job.attempts.push({ server: server.url, reason })
            server.failedAttempts += 1
            const broken = env
            env = undefined
            await broken.close()()
            if (played.left._tag === 'Transport' || played.left._tag === 'Timeout') await retire(server, reason)
          }
        }
        if (outcomes[job.index] === undefined) {
          if (job.attempts.length >= maxAttempts) outcomes[job.index] = { _tag: 'Failed', seed: job.seed, attempts: job.attempts }
          else {
            retried += 1
            queue.push(job)
          }
        }
        inFlight -= 1
        signal()
      }
      if (env !== undefined) await env.close()()
      signal()
    }

    await Promise.all(servers.flatMap((server) => Array.from({ length: options.slotsPerServer ?? 4 }, () => slot(server))))
    // Seeds still queued when every server was retired.
    for (const job of queue)
      outcomes[job.index] = { _tag: 'Failed', seed: job.seed, attempts: [...job.attempts, { server: '(none)', reason: 'no live server left' }] }
    const all = outcomes.map((o, i): Outcome => o ?? { _tag: 'Failed', seed: seeds[i]!, attempts: [{ server: '(none)', reason: 'never scheduled' }] })
    const played = all.filter((o) => o._tag === 'Played').length
    return {
      outcomes: all,
      played,
      failed: all.length - played,
      retried,
      servers: servers.map((s) => ({ url: s.url, played: s.played, failedAttempts: s.failedAttempts, retired: s.retired }))
    }
  }
