/**
 * Environments spread over many servers, for callers that drive `Env`s themselves (token-level
 * rollouts, evaluation, RL): the n-th environment made starts on server `n mod k`. When a reset
 * fails with a transport error or a timeout and the server does not answer a health probe
 * (`GET /`), the server is retired for the whole pool and the environment resets on the next
 * live one, so a server that dies costs no episode that had not started yet. An episode whose
 * server dies mid-way fails with the environment's error (its steps cannot move).
 *
 * Every environment of a pool has the same spec (one name for all servers), so the episodes of a
 * group compare as one task.
 *
 * @since 0.1.0
 */
import { EnvError, type Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import * as HttpEnv from './HttpEnv.js'
import { probe } from './internal/probe.js'

/**
 * - `servers`: base URLs (at least one);
 * - `client`: HttpEnv settings for every server (family, timeouts, token, name, maxTurns ...);
 * - `probeTimeoutMs`: the health probe's patience (default 2 000).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly servers: ReadonlyArray<string>
  readonly client?: Omit<HttpEnv.Options, 'baseUrl'>
  readonly probeTimeoutMs?: number
}

/**
 * A pool: its spec, `make` (one environment per episode slot), and the servers retired so far
 * with the reason.
 *
 * @category models
 * @since 0.1.0
 */
export interface Pool {
  readonly spec: Env.EnvSpec
  readonly make: () => Env.Env
  readonly retired: () => ReadonlyArray<{ readonly server: string; readonly reason: string }>
}

/**
 * The spec of a pool's environments: the client's `name` or `http:<first server>+<k-1>`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const specOf = (options: Options): Env.EnvSpec => {
  const first = options.servers[0] ?? ''
  const name = options.client?.name ?? `http:${first.replace(/\/+$/, '')}${options.servers.length > 1 ? `+${options.servers.length - 1}` : ''}`
  return HttpEnv.specOf({ ...options.client, baseUrl: first, name })
}

/**
 * Builds a pool. Throws (a programmer error) without servers.
 *
 * @example
 * import { Pool } from '@mtrl/env-http'
 * const pool = Pool.make({ servers: ['http://10.0.0.2:8000', 'http://10.0.0.3:8000'] })
 * const envs = Array.from({ length: 8 }, pool.make)   // four on each server
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options): Pool => {
  if (options.servers.length === 0) throw new Error('Pool.make: no servers')
  const spec = specOf(options)
  const retired = new Map<string, string>()
  let made = 0

  const env = (start: number): Env.Env => {
    let at = start
    let current: Env.Env | undefined
    const close = async (): Promise<void> => {
      const open = current
      current = undefined
      if (open !== undefined) await open.close()()
    }
    const reset = (seed: number) => async (): Promise<E.Either<EnvError.EnvError, Env.Observation>> => {
      let last: EnvError.EnvError | undefined
      for (let tried = 0; tried < options.servers.length; tried++) {
        const server = options.servers[at % options.servers.length]!
        if (retired.has(server)) {
          at += 1
          continue
        }
        current ??= HttpEnv.make({ ...options.client, baseUrl: server }, spec)
        const observation = await current.reset(seed)()
        if (E.isRight(observation)) return observation
        last = observation.left
        if (last._tag !== 'Transport' && last._tag !== 'Timeout') return observation
        if (await probe(server, options.probeTimeoutMs ?? 2_000, options.client?.token)) return observation
        retired.set(server, EnvError.message(last))
        await close()
        at += 1
      }
      return E.left(last ?? EnvError.resetFailed(spec.name, seed, `no live server left of ${options.servers.join(', ')}`))
    }
    return {
      spec,
      reset,
      step: (action) => async () => (current === undefined ? E.left(EnvError.notStarted(spec.name)) : current.step(action)()),
      close: () => close
    }
  }

  return {
    spec,
    make: () => env(made++),
    retired: () => [...retired].map(([server, reason]) => ({ server, reason }))
  }
}

/**
 * The environment source of a pool (what a pipeline plays): one pool, its spec's name and turn
 * budget; no expert.
 *
 * @example
 * import { Pool } from '@mtrl/env-http'
 * const source = Pool.source({ servers: ['http://10.0.0.2:8000', 'http://10.0.0.3:8000'] })
 *
 * @category constructors
 * @since 0.1.0
 */
export const source = (options: Options): Env.EnvSource => {
  const pool = make(options)
  return { name: pool.spec.name, maxTurns: pool.spec.maxTurns, make: pool.make, dispose: () => undefined }
}
