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
import { Decode, type Env, EnvError } from '@mtrl/core'
import { timingSafeEqual } from 'node:crypto'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import * as E from 'fp-ts/lib/Either.js'
import type { Task } from 'fp-ts/lib/Task.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import type * as t from 'io-ts'
import * as Body from './internal/body.js'
import * as Table from './internal/table.js'
import * as Protocol from './Protocol.js'

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

const envErrorStatus = (error: EnvError.EnvError): number => {
  switch (error._tag) {
    case 'NotStarted':
    case 'EpisodeOver':
      return 409
    case 'ResetFailed':
    case 'StepFailed':
      return 500
    case 'Transport':
    case 'Timeout':
    case 'InvalidResponse':
      return 502
  }
}

interface Answer {
  readonly status: number
  readonly body: unknown
}

const envErrorAnswer = (error: EnvError.EnvError): Answer => ({
  status: envErrorStatus(error),
  body: { error: { ...error, message: EnvError.message(error) } }
})
const failure = (status: number, tag: string, message: string): Answer => ({ status, body: { error: { _tag: tag, message } } })

const tokenMatches = (header: string | undefined, token: string): boolean => {
  const given = Buffer.from(header ?? '')
  const wanted = Buffer.from(`Bearer ${token}`)
  return given.length === wanted.length && timingSafeEqual(given, wanted)
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
  () =>
    new Promise((resolve) => {
      const host = options.host ?? '127.0.0.1'
      const maxBodyBytes = options.maxBodyBytes ?? 65_536
      const idleMs = options.idleMs ?? 600_000
      const table = Table.make(options.maxEnvs ?? 256, idleMs)
      const spec = options.spec ?? specOfFactory(options.factory)
      let closing = false
      let inFlight = 0
      let drained: (() => void) | undefined

      const decodeBody = <A>(text: string, subject: string, codec: t.Type<A, unknown, unknown>): E.Either<Answer, A> => {
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch (error) {
          return E.left(failure(400, 'BadJson', `${subject}: the body is not JSON: ${(error as Error).message}`))
        }
        const decoded = Decode.decode(subject, codec)(json)
        return E.isLeft(decoded) ? E.left(failure(400, 'BadRequest', Decode.formatError(decoded.left))) : E.right(decoded.right)
      }

      const withSlot = async (id: number, op: (slot: Table.Slot) => Promise<Answer>): Promise<Answer> => {
        const slot = table.get(id)
        return slot === undefined ? failure(404, 'UnknownEnv', `no environment with id ${id}`) : table.run(slot, () => op(slot))
      }

      const post = async (path: string, text: string): Promise<Answer> => {
        switch (path) {
          case '/create': {
            const env = options.factory()
            const id = table.add(env)
            if (id !== undefined) return { status: 200, body: { id } }
            await env.close()()
            return failure(503, 'AtCapacity', `this server holds its maximum of ${options.maxEnvs ?? 256} environments; close one first`)
          }
          case '/reset': {
            const request = decodeBody(text, 'POST /reset body', Protocol.ResetRequest)
            if (E.isLeft(request)) return request.left
            const seed = Protocol.seedOf(request.right)
            if (seed === undefined) return failure(400, 'BadRequest', 'invalid POST /reset body:\n  seed: expected Seed, got undefined')
            return withSlot(Protocol.idOf(request.right), async (slot) => {
              const result = await slot.env.reset(seed)()
              if (E.isLeft(result)) return envErrorAnswer(result.left)
              slot.nextSeq = 0
              slot.last = undefined
              return { status: 200, body: Protocol.encodeReset(result.right) }
            })
          }
          case '/step': {
            const request = decodeBody(text, 'POST /step body', Protocol.StepRequest)
            if (E.isLeft(request)) return request.left
            const { action, seq } = request.right
            return withSlot(Protocol.idOf(request.right), async (slot) => {
              if (seq !== undefined && slot.last?.seq === seq) return slot.last
              if (seq !== undefined && seq !== slot.nextSeq)
                return failure(409, 'OutOfOrder', `step seq ${seq} but the next step of this episode is ${slot.nextSeq}`)
              const result = await slot.env.step(action)()
              const answer = E.isLeft(result) ? envErrorAnswer(result.left) : { status: 200, body: Protocol.encodeStep(result.right) }
              slot.nextSeq += 1
              if (seq !== undefined) slot.last = { seq, ...answer }
              return answer
            })
          }
          case '/close': {
            const request = decodeBody(text, 'POST /close body', Protocol.CloseRequest)
            if (E.isLeft(request)) return request.left
            const id = Protocol.idOf(request.right)
            return (await table.remove(id)) ? { status: 200, body: { closed: true } } : failure(404, 'UnknownEnv', `no environment with id ${id}`)
          }
          default:
            return failure(404, 'NotFound', `no route POST ${path}`)
        }
      }

      const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
        const path = new URL(req.url ?? '/', 'http://localhost').pathname
        const method = req.method ?? 'GET'
        if (closing) return Body.error(res, 503, 'ShuttingDown', 'the server is shutting down', {}, { connection: 'close' })
        if (method === 'GET' && path === '/') return Body.json(res, 200, 'ok')
        if (options.token !== undefined && !tokenMatches(req.headers.authorization, options.token))
          return Body.error(res, 401, 'Unauthorized', 'missing or wrong bearer token', {}, { 'www-authenticate': 'Bearer' })
        if (method === 'GET') {
          if (path === '/list_envs') return Body.json(res, 200, table.ids())
          if (path === '/spec') return Body.json(res, 200, spec)
          return Body.error(res, 404, 'NotFound', `no route GET ${path}`)
        }
        if (method !== 'POST') return Body.error(res, 405, 'MethodNotAllowed', `${method} is not served; use GET or POST`, {}, { allow: 'GET, POST' })
        const body = await Body.read(req, maxBodyBytes, Math.max(16 * maxBodyBytes, 8 << 20))
        if (body._tag === 'Aborted') return
        if (body._tag === 'TooLarge')
          return Body.error(res, 413, 'TooLarge', `the body has ${body.bytes} bytes; the limit is ${maxBodyBytes}`, {}, { connection: 'close' })
        const answer = await post(path, body.text === '' ? '{}' : body.text)
        Body.json(res, answer.status, answer.body)
      }

      const server = http.createServer((req, res) => {
        inFlight += 1
        handle(req, res)
          .catch((error: unknown) => Body.error(res, 500, 'Internal', `the server failed: ${(error as Error)?.message ?? String(error)}`))
          .finally(() => {
            inFlight -= 1
            if (inFlight === 0) drained?.()
          })
      })
      server.keepAliveTimeout = 30_000
      const sweeper = setInterval(() => void table.reap(Date.now()), Math.max(10, Math.min(idleMs / 2, 5_000)))
      sweeper.unref()

      const close = (): Task<void> => async () => {
        if (closing) return
        closing = true
        clearInterval(sweeper)
        const stopped = new Promise<void>((done) => server.close(() => done()))
        server.closeIdleConnections()
        if (inFlight > 0)
          await new Promise<void>((done) => {
            drained = done
            setTimeout(done, options.shutdownGraceMs ?? 5_000).unref()
          })
        await table.closeAll()
        server.closeAllConnections()
        await stopped
      }

      server.once('error', (error) => {
        clearInterval(sweeper)
        resolve(E.left({ _tag: 'ListenFailed', host, port: options.port ?? 0, reason: error.message }))
      })
      server.listen(options.port ?? 0, host, () => {
        const port = (server.address() as AddressInfo).port
        const shown = host.includes(':') ? `[${host}]` : host
        resolve(E.right({ url: `http://${shown}:${port}`, port, size: table.size, close }))
      })
    })

const specOfFactory = (factory: Env.EnvFactory): Env.EnvSpec => {
  const env = factory()
  void env.close()()
  return env.spec
}
