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
import { Listen, Traffic, type Settings } from '@mtrl/http'
import * as E from 'fp-ts/lib/Either.js'
import * as http from 'node:http'
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
export interface Options extends Settings.Settings {
  readonly factory: Env.EnvFactory
  readonly maxEnvs?: number
  readonly idleMs?: number
  readonly spec?: Env.EnvSpec
}

/**
 * A running server. `close` stops accepting requests, lets those in flight finish (up to the
 * grace period), closes every environment and every connection.
 *
 * @category models
 * @since 0.1.0
 */
export interface EnvServer extends Listen.Bound {
  /** Environments currently held. */
  readonly size: () => number
  readonly close: () => Task<void>
}

/** @category models @since 0.1.0 */
export type ServerError = Listen.ListenFailed

/** The spec of one environment of the factory (that environment is closed right away). */
const specOfFactory = (factory: Env.EnvFactory): Env.EnvSpec => {
  const env = factory()
  void env.close()()
  return env.spec
}

/** Answers for what the routes do not: shutting down (503, the connection closed), a route that threw (500). */
const answers: Traffic.Answers = {
  closing: (res) => Body.error(res, 503, 'ShuttingDown', 'the server is shutting down', {}, { connection: 'close' }),
  failed: (res, error) => Body.error(res, 500, 'Internal', `the server failed: ${(error as Error)?.message ?? String(error)}`)
}

/** Closes idle environments every `idleMs / 2` (between 10 ms and 5 s), without keeping the process alive. */
const startSweeper = (table: Table.Table, idleMs: number): NodeJS.Timeout => {
  const sweeper = setInterval(() => void table.reap(Date.now()), Math.max(10, Math.min(idleMs / 2, 5_000)))
  sweeper.unref()
  return sweeper
}

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
    const traffic = Traffic.make()
    const handle = Handler.handle({
      token: options.token,
      spec: options.spec ?? specOfFactory(options.factory),
      table,
      maxBodyBytes: options.maxBodyBytes ?? 65_536,
      post: Routes.post({ factory: options.factory, table, maxEnvs })
    })
    const server = http.createServer(Traffic.listener(traffic, answers, handle))
    server.keepAliveTimeout = 30_000
    const sweeper = startSweeper(table, idleMs)
    // refuses new requests, drains those in flight, closes every environment and connection
    const close = (): Task<void> => () => (clearInterval(sweeper), Traffic.close(server, traffic, options.shutdownGraceMs ?? 5_000, table.closeAll))
    const bound = await Listen.listen(server, host, options.port ?? 0)
    if (E.isLeft(bound)) clearInterval(sweeper)
    return E.map(({ url, port }: Listen.Bound) => ({ url, port, size: table.size, close }))(bound)
  }
