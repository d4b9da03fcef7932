/**
 * Serves any mtrl `EnvFactory` over AgentGym's HTTP protocol (id style `id`), so that remote
 * clients (an mtrl `HttpEnv`, an AgentGym client) can play it. What `mtrl serve-env` runs.
 *
 * Routes: `GET /` (health, `"ok"`), `GET /list_envs`, `GET /spec` (mtrl extension), `POST
 * /create`, `/reset`, `/step`, `/close`. Binds 127.0.0.1 unless told otherwise. Bad input
 * (malformed JSON, wrong types, unknown id, a body over the limit, a missing token) gets a 4xx
 * answer `{"error": {"_tag", "message"}}` and the server keeps serving. Environments beyond
 * `maxEnvs` are refused with 503; environments idle for `idleMs` are closed.
 *
 * @since 0.1.0
 */
import type { Env } from '@mtrl/core'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import * as E from 'fp-ts/lib/Either.js'
import type { Task } from 'fp-ts/lib/Task.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import * as Body from './internal/body.js'
import * as Handler from './internal/handler.js'
import * as Routes from './internal/routes.js'
import * as Table from './internal/table.js'

/**
 * - `host` (default `127.0.0.1`), `port` (default 0: any free port);
 * - `token`: when set, every route but `GET /` needs `Authorization: Bearer <token>`;
 * - `maxBodyBytes` (default 65 536), `maxEnvs` (default 256), `idleMs` (default 600 000);
 * - `spec`: what `GET /spec` answers (default: the spec of one environment of the factory);
 * - `shutdownGraceMs`: how long `close` waits for requests in flight (default 5 000).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly factory: Env.EnvFactory
  readonly host?: string
  readonly port?: number
  readonly token?: string
  readonly maxBodyBytes?: number
  readonly maxEnvs?: number
  readonly idleMs?: number
  readonly spec?: Env.EnvSpec
  readonly shutdownGraceMs?: number
}

/**
 * A running server. `close` stops accepting requests, lets those in flight finish (up to the
 * grace period), closes every environment and every connection.
 *
 * @category models
 * @since 0.1.0
 */
export interface EnvServer {
  readonly url: string
  readonly port: number
  /** Environments currently held. */
  readonly size: () => number
  readonly close: () => Task<void>
}

/** @category models @since 0.1.0 */
export type ServerError = { readonly _tag: 'ListenFailed'; readonly host: string; readonly port: number; readonly reason: string }

/** The spec of one environment of the factory (that environment is closed right away). */
const specOfFactory = (factory: Env.EnvFactory): Env.EnvSpec => {
  const env = factory()
  void env.close()()
  return env.spec
}

/** The shutdown flag and the requests in flight, shared by the request listener and `close`. */
interface Lifecycle {
  closing: boolean
  inFlight: number
  /** Called when the last request in flight finishes during a shutdown. */
  drained: (() => void) | undefined
}

type Listener = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>

/** Wraps `handle` so that it counts requests in flight and answers 500 when it fails unexpectedly. */
const trackRequests =
  (lifecycle: Lifecycle, handle: Listener) =>
  (req: http.IncomingMessage, res: http.ServerResponse): void => {
    lifecycle.inFlight += 1
    handle(req, res)
      .catch((error: unknown) => Body.error(res, 500, 'Internal', `the server failed: ${(error as Error)?.message ?? String(error)}`))
      .finally(() => {
        lifecycle.inFlight -= 1
        if (lifecycle.inFlight === 0) lifecycle.drained?.()
      })
  }

/** Closes idle environments every `idleMs / 2` (between 10 ms and 5 s), without keeping the process alive. */
const startSweeper = (table: Table.Table, idleMs: number): NodeJS.Timeout => {
  const sweeper = setInterval(() => void table.reap(Date.now()), Math.max(10, Math.min(idleMs / 2, 5_000)))
  sweeper.unref()
  return sweeper
}

/** What `close` shuts down. */
interface Running {
  readonly server: http.Server
  readonly lifecycle: Lifecycle
  readonly table: Table.Table
  readonly sweeper: NodeJS.Timeout
  readonly shutdownGraceMs: number
}

/** Waits until no request is in flight, or `graceMs` at most. */
const drain = (lifecycle: Lifecycle, graceMs: number): Promise<void> =>
  lifecycle.inFlight === 0
    ? Promise.resolve()
    : new Promise<void>((done) => {
        lifecycle.drained = done
        setTimeout(done, graceMs).unref()
      })

/** `EnvServer.close`: refuses new requests, drains those in flight, closes every environment and connection. Idempotent. */
const closeServer =
  ({ server, lifecycle, table, sweeper, shutdownGraceMs }: Running) =>
  (): Task<void> =>
  async () => {
    if (lifecycle.closing) return
    lifecycle.closing = true
    clearInterval(sweeper)
    const stopped = new Promise<void>((done) => server.close(() => done()))
    server.closeIdleConnections()
    await drain(lifecycle, shutdownGraceMs)
    await table.closeAll()
    server.closeAllConnections()
    await stopped
  }

/** The server's URL; an IPv6 host goes in brackets. */
const urlOf = (host: string, port: number): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}`

/** Listens on `host:port`; `ListenFailed` (and the sweeper stopped) when the port cannot be bound. */
const listen = ({ server, sweeper }: Running, host: string, port: number, running: (port: number) => EnvServer): Promise<E.Either<ServerError, EnvServer>> =>
  new Promise((resolve) => {
    server.once('error', (error) => {
      clearInterval(sweeper)
      resolve(E.left({ _tag: 'ListenFailed', host, port, reason: error.message }))
    })
    server.listen(port, host, () => resolve(E.right(running((server.address() as AddressInfo).port))))
  })

/**
 * Starts serving `options.factory`.
 *
 * @example
 * import { EnvServer } from '@mtrl/env-http'
 * const server = await EnvServer.start({ factory: () => TextWorld.make(settings), port: 8000 })()
 * // Right({ url: 'http://127.0.0.1:8000', close, size })
 *
 * @category constructors
 * @since 0.1.0
 */
export const start =
  (options: Options): TaskEither<ServerError, EnvServer> =>
  async () => {
    const host = options.host ?? '127.0.0.1'
    const idleMs = options.idleMs ?? 600_000
    const maxEnvs = options.maxEnvs ?? 256
    const table = Table.make(maxEnvs, idleMs)
    const lifecycle: Lifecycle = { closing: false, inFlight: 0, drained: undefined }
    const handle = Handler.handle({
      token: options.token,
      spec: options.spec ?? specOfFactory(options.factory),
      table,
      maxBodyBytes: options.maxBodyBytes ?? 65_536,
      isClosing: () => lifecycle.closing,
      post: Routes.post({ factory: options.factory, table, maxEnvs })
    })
    const server = http.createServer(trackRequests(lifecycle, handle))
    server.keepAliveTimeout = 30_000
    const sweeper = startSweeper(table, idleMs)
    const running: Running = { server, lifecycle, table, sweeper, shutdownGraceMs: options.shutdownGraceMs ?? 5_000 }
    const close = closeServer(running)
    return listen(running, host, options.port ?? 0, (port) => ({ url: urlOf(host, port), port, size: table.size, close }))
  }
