/**
 * An OpenAI-compatible HTTP server of one {@link Completions.Model}: `POST /v1/chat/completions`
 * (plain and streamed as server-sent events ending `data: [DONE]`), `POST /v1/responses` (the
 * Responses API: see {@link Responses}), `GET /v1/models`,
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
import { Rng } from '@mtrl/core'
import { Listen, Traffic, type Settings } from '@mtrl/http'
import * as E from 'fp-ts/lib/Either.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import * as http from 'node:http'
import * as Completions from './Completions.js'
import * as Body from './internal/body.js'
import * as Conversations from './internal/conversations.js'
import { route } from './internal/route.js'
import type { RouteContext } from './internal/routeContext.js'
import type * as Rollouts from './Rollouts.js'

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
export interface Options extends Settings.Settings {
  readonly model: Completions.Model
  readonly maxRequests?: number
  readonly seed?: number
  /** Agent runs served under `/rollouts/<id>/v1`, their calls recorded (see {@link Rollouts}). */
  readonly rollouts?: Rollouts.Rollouts
  /** Responses whose conversation is kept for `previous_response_id` (default 1024, the most recent). */
  readonly maxConversations?: number
}

/**
 * A running server; `url` ends without a slash (the API is under `${url}/v1`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Server extends Listen.Bound {
  /** Requests in flight. */
  readonly inFlight: () => number
  readonly close: () => Promise<void>
}

/** @category models @since 0.1.0 */
export type ServerError = Listen.ListenFailed

/** OpenAI's error objects for what the routes do not answer: shutting down (503), too many requests (429), a route that threw (500). */
const answers: Traffic.Answers = {
  closing: (res) => Body.fail(res, 503, 'the server is shutting down', 'server_error'),
  busy: (res, max) => Body.fail(res, 429, `too many requests at once (${max}); retry later`, 'rate_limit_error', null, 'rate_limit_exceeded'),
  failed: (res, error) => Body.fail(res, 500, `internal error: ${error instanceof Error ? error.message : String(error)}`, 'server_error')
}

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
  async () => {
    const host = options.host ?? '127.0.0.1'
    const seeds = Rng.make(options.seed ?? 0)
    const context: RouteContext = {
      options,
      planOf: Completions.plan(options.model, () => seeds.int(2 ** 31)),
      created: Math.floor(Date.now() / 1000),
      conversations: Conversations.make(options.maxConversations ?? 1024)
    }
    const traffic = Traffic.make()
    const server = http.createServer(Traffic.listener(traffic, answers, (req, res) => route(context, req, res), options.maxRequests ?? 256))
    // idle keep-alive sockets live a minute: an event loop busy with a long update fires the
    // timer late, and a client reusing the socket then would meet a reset connection
    server.keepAliveTimeout = 60_000
    const bound = await Listen.listen(server, host, options.port ?? 0)
    return E.map(({ url, port }: Listen.Bound) => ({
      url,
      port,
      inFlight: () => traffic.inFlight,
      close: () => Traffic.close(server, traffic, options.shutdownGraceMs ?? 30_000)
    }))(bound)
  }
