/**
 * An OpenAI-compatible HTTP server of one {@link Completions.Model}: `POST /v1/chat/completions`
 * (plain and streamed as server-sent events ending `data: [DONE]`), `GET /v1/models`,
 * `GET /v1/models/{id}`, and `GET /health`. What `mtrl serve-policy` runs; the `openai` client,
 * the `ai` SDK and anything else that speaks the API can use it.
 *
 * Bad input (malformed JSON, wrong types, an unknown model, a prompt longer than the context,
 * a body over the limit, too many requests at once, a missing token) gets OpenAI's error object
 * with a 4xx status and the server keeps serving. Binds 127.0.0.1 unless told otherwise. `close`
 * refuses new requests (503), lets those in flight finish, and stops.
 *
 * @since 0.1.0
 */
import { Decode, Rng } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import { timingSafeEqual } from 'node:crypto'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import type * as Capture from './Capture.js'
import * as Completions from './Completions.js'
import * as Body from './internal/body.js'
import * as Request from './Request.js'
import * as Rollouts from './Rollouts.js'
import * as Response from './Response.js'

/**
 * - `host` (default `127.0.0.1`), `port` (default 0: any free port);
 * - `token`: when set, every `/v1` route needs `Authorization: Bearer <token>`;
 * - `maxBodyBytes` (default 4 MiB), `maxRequests`: requests in flight at once, beyond which
 *   the server answers 429 (default 256);
 * - `seed`: seeds the choices of requests without `seed` (default 0);
 * - `shutdownGraceMs`: how long `close` waits for requests in flight (default 30 000);
 * - `rollouts`: agent runs, each with its own routes: `/rollouts/<id>/v1/chat/completions` and
 *   `/v1/models` (every call recorded as the run's), `POST /rollouts/<id>/reward`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly model: Completions.Model
  readonly host?: string
  readonly port?: number
  readonly token?: string
  readonly maxBodyBytes?: number
  readonly maxRequests?: number
  readonly seed?: number
  readonly shutdownGraceMs?: number
  /** Agent runs served under `/rollouts/<id>/v1`, their calls recorded (see {@link Rollouts}). */
  readonly rollouts?: Rollouts.Rollouts
}

/**
 * A running server; `url` ends without a slash (the API is under `${url}/v1`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Server {
  readonly url: string
  readonly port: number
  /** Requests in flight. */
  readonly inFlight: () => number
  readonly close: () => Promise<void>
}

/** @category models @since 0.1.0 */
export type ServerError = { readonly _tag: 'ListenFailed'; readonly host: string; readonly port: number; readonly reason: string }

const tokenMatches = (header: string | undefined, token: string): boolean => {
  const given = Buffer.from(header ?? '')
  const wanted = Buffer.from(`Bearer ${token}`)
  return given.length === wanted.length && timingSafeEqual(given, wanted)
}

const fail = (res: http.ServerResponse, status: number, message: string, type: string, param: string | null = null, code: string | null = null): void =>
  Body.json(res, status, Response.error(message, type, param, code))

/** The request decoded, or the answer that refuses it. */
const decodeRequest = (text: string): E.Either<Completions.Refusal, Request.ChatRequest> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    return E.left({ status: 400, type: 'invalid_request_error', message: `the body is not JSON: ${(error as Error).message}`, param: null, code: null })
  }
  const decoded = Decode.decode('chat completion request', Request.ChatRequest)(json)
  if (E.isRight(decoded)) return decoded
  const first = decoded.left.issues[0]
  return E.left({ status: 400, type: 'invalid_request_error', message: Decode.formatError(decoded.left), param: first?.path ?? null, code: null })
}

const models = (model: Completions.Model, created: number) => ({
  id: model.name,
  object: 'model' as const,
  created,
  owned_by: 'mtrl',
  max_model_len: model.engine.maxLen
})

/**
 * Starts serving `options.model`.
 *
 * @example
 * import { Server } from '@mtrl/serving'
 * declare const model: import('@mtrl/serving').Completions.Model
 * const server = await Server.start({ model, port: 8000 })()
 * // Right({ url: 'http://127.0.0.1:8000', ... }); the openai client takes baseURL `${url}/v1`
 *
 * @category constructors
 * @since 0.1.0
 */
export const start =
  (options: Options): TaskEither<ServerError, Server> =>
  () =>
    new Promise((resolve) => {
      const { model } = options
      const host = options.host ?? '127.0.0.1'
      const maxRequests = options.maxRequests ?? 256
      const seeds = Rng.make(options.seed ?? 0)
      const planOf = Completions.plan(model, () => seeds.int(2 ** 31))
      const created = Math.floor(Date.now() / 1000)
      let inFlight = 0
      let closing = false
      let drained: (() => void) | undefined

      const chat = async (req: http.IncomingMessage, res: http.ServerResponse, record?: (call: Capture.Call) => void): Promise<void> => {
        const body = await Body.read(req, options.maxBodyBytes ?? 4 << 20)
        if (body._tag === 'Aborted') return
        if (body._tag === 'TooLarge') return fail(res, 413, `the body is over the limit of ${options.maxBodyBytes ?? 4 << 20} bytes`, 'invalid_request_error')
        const planned = E.chain(planOf)(decodeRequest(body.text))
        if (E.isLeft(planned)) return fail(res, planned.left.status, planned.left.message, planned.left.type, planned.left.param, planned.left.code)
        const aborted = new AbortController()
        res.on('close', () => {
          if (!res.writableEnded) aborted.abort()
        })
        if (planned.right.request.stream !== true) {
          const done = await Completions.complete(model, planned.right, aborted.signal, record)
          if (done !== undefined) Body.json(res, 200, done)
          return
        }
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' })
        const finished = await Completions.stream(model, planned.right, (chunk) => res.write(`data: ${JSON.stringify(chunk)}\n\n`), aborted.signal, record)
        if (finished) res.end('data: [DONE]\n\n')
      }

      /** `POST /rollouts/<id>/reward`: the run's reward. */
      const reward = async (req: http.IncomingMessage, res: http.ServerResponse, id: string): Promise<void> => {
        const body = await Body.read(req, 65_536)
        if (body._tag !== 'Read')
          return body._tag === 'TooLarge' ? fail(res, 413, 'the body is over the limit of 65536 bytes', 'invalid_request_error') : undefined
        let json: unknown
        try {
          json = JSON.parse(body.text)
        } catch (error) {
          return fail(res, 400, `the body is not JSON: ${(error as Error).message}`, 'invalid_request_error')
        }
        const decoded = Decode.decode('reward', Rollouts.Reward)(json)
        if (E.isLeft(decoded))
          return fail(
            res,
            400,
            `${Decode.formatError(decoded.left)}\n(send {"reward": number} or {"rewards": [number, ...]})`,
            'invalid_request_error',
            'reward'
          )
        return options.rollouts!.reward(id, decoded.right) ? Body.json(res, 200, { ok: true }) : fail(res, 404, `no open rollout ${id}`, 'not_found_error')
      }

      /** `/rollouts/<id>/...`: the run's own API, its calls recorded. */
      const rollout = (req: http.IncomingMessage, res: http.ServerResponse, id: string, rest: string): Promise<void> | void => {
        const runs = options.rollouts
        if (runs?.get(id) === undefined) return fail(res, 404, `no open rollout ${id}`, 'not_found_error')
        if (rest === '/reward')
          return req.method === 'POST' ? reward(req, res, id) : fail(res, 405, `${req.method} /rollouts/${id}/reward: use POST`, 'invalid_request_error')
        if (rest === '/v1/chat/completions' && req.method === 'POST') return chat(req, res, (call) => void runs.record(id, call))
        return api(req, res, rest)
      }

      const route = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
        const path = (req.url ?? '/').split('?')[0]!
        if (req.method === 'GET' && (path === '/health' || path === '/')) return Body.json(res, 200, { status: 'ok' })
        if (options.token !== undefined && !tokenMatches(req.headers.authorization, options.token))
          return fail(res, 401, 'a bearer token is required: Authorization: Bearer <token>', 'invalid_request_error', null, 'invalid_api_key')
        const run = /^\/rollouts\/([A-Za-z0-9_-]{1,64})(\/.*)$/.exec(path)
        if (run !== null) return rollout(req, res, run[1]!, run[2]!)
        return api(req, res, path)
      }

      /** The OpenAI routes. */
      const api = async (req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> => {
        if (req.method === 'GET' && path === '/v1/models') return Body.json(res, 200, { object: 'list', data: [models(model, created)] })
        if (req.method === 'GET' && path.startsWith('/v1/models/')) {
          const id = decodeURIComponent(path.slice('/v1/models/'.length))
          return id === model.name
            ? Body.json(res, 200, models(model, created))
            : fail(res, 404, `The model \`${id}\` does not exist`, 'not_found_error', 'model', 'model_not_found')
        }
        if (path === '/v1/chat/completions')
          return req.method === 'POST' ? chat(req, res) : fail(res, 405, `${req.method} ${path}: use POST`, 'invalid_request_error')
        return fail(res, 404, `no route ${req.method} ${path}`, 'not_found_error')
      }

      const server = http.createServer((req, res) => {
        if (closing) return fail(res, 503, 'the server is shutting down', 'server_error')
        if (inFlight >= maxRequests)
          return fail(res, 429, `too many requests at once (${maxRequests}); retry later`, 'rate_limit_error', null, 'rate_limit_exceeded')
        inFlight++
        route(req, res)
          .catch((error: unknown) => fail(res, 500, `internal error: ${error instanceof Error ? error.message : String(error)}`, 'server_error'))
          .finally(() => {
            inFlight--
            if (inFlight === 0) drained?.()
          })
      })
      // idle keep-alive sockets live a minute: an event loop busy with a long update fires the
      // timer late, and a client reusing the socket then would meet a reset connection
      server.keepAliveTimeout = 60_000
      server.once('error', (error) => resolve(E.left({ _tag: 'ListenFailed', host, port: options.port ?? 0, reason: error.message })))
      server.listen(options.port ?? 0, host, () => {
        const port = (server.address() as AddressInfo).port
        resolve(
          E.right({
            url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
            port,
            inFlight: () => inFlight,
            close: async () => {
              closing = true
              const stopped = new Promise<void>((done) => server.close(() => done()))
              if (inFlight > 0)
                await Promise.race([
                  new Promise<void>((done) => (drained = done)),
                  new Promise((done) => setTimeout(done, options.shutdownGraceMs ?? 30_000).unref())
                ])
              server.closeAllConnections()
              await stopped
            }
          })
        )
      })
    })
