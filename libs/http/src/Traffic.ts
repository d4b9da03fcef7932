/**
 * The requests in flight of a server: counted through a listener that refuses them while the
 * server closes or beyond a limit and answers for a route that throws, and a graceful close
 * that refuses new requests, waits for those in flight (up to a grace period), then drops every
 * connection.
 *
 * @since 0.1.0
 */
import type * as http from 'node:http'

/**
 * The shared state of a listener and its close.
 *
 * @category models
 * @since 0.1.0
 */
export interface Traffic {
  inFlight: number
  closing: boolean
  /** Called when the last request in flight ends, while `close` waits for it. */
  drained: (() => void) | undefined
  /** The close under way, so that a second `close` waits for the first. */
  closed: Promise<void> | undefined
}

/**
 * How a server answers what its routes do not: a request while closing (`closing`, usually a
 * 503), one beyond `maxRequests` (`busy`, usually a 429), a route that threw (`failed`, a 500).
 *
 * @category models
 * @since 0.1.0
 */
export interface Answers {
  readonly closing: (res: http.ServerResponse) => void
  readonly busy?: (res: http.ServerResponse, maxRequests: number) => void
  readonly failed: (res: http.ServerResponse, error: unknown) => void
}

/** A route: answers one request. @category models @since 0.1.0 */
export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>

/** No request in flight, open. @category constructors @since 0.1.0 */
export const make = (): Traffic => ({ inFlight: 0, closing: false, drained: undefined, closed: undefined })

/**
 * A request listener (for `http.createServer`) that counts the requests `route` answers,
 * refusing them while closing or beyond `maxRequests` (default: no limit).
 *
 * @example
 * import { Traffic } from '@mtrl/http'
 * import * as http from 'node:http'
 * const traffic = Traffic.make()
 * const answers = { closing: (res: http.ServerResponse) => void res.writeHead(503).end(), failed: (res: http.ServerResponse) => void res.writeHead(500).end() }
 * const server = http.createServer(Traffic.listener(traffic, answers, async (_req, res) => void res.end('ok')))
 * // later: await Traffic.close(server, traffic, 5_000)
 *
 * @category constructors
 * @since 0.1.0
 */
export const listener =
  (traffic: Traffic, answers: Answers, route: Route, maxRequests = Number.POSITIVE_INFINITY) =>
  (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (traffic.closing) return answers.closing(res)
    if (traffic.inFlight >= maxRequests && answers.busy !== undefined) return answers.busy(res, maxRequests)
    traffic.inFlight++
    route(req, res)
      .catch((error: unknown) => answers.failed(res, error))
      .finally(() => {
        traffic.inFlight--
        if (traffic.inFlight === 0) traffic.drained?.()
      })
  }

/** Waits until no request is in flight, or `graceMs` at most. */
const drain = (traffic: Traffic, graceMs: number): Promise<void> =>
  traffic.inFlight === 0
    ? Promise.resolve()
    : new Promise<void>((done) => {
        traffic.drained = done
        setTimeout(done, graceMs).unref()
      })

/**
 * Refuses new requests, waits up to `graceMs` for those in flight, runs `beforeDrop` (what the
 * server frees once its requests are done), then drops every connection and stops `server`. A
 * second call waits for the first.
 *
 * @category destructors
 * @since 0.1.0
 */
export const close = (server: http.Server, traffic: Traffic, graceMs: number, beforeDrop: () => Promise<void> = async () => undefined): Promise<void> => {
  if (traffic.closed !== undefined) return traffic.closed
  traffic.closing = true
  const stopped = new Promise<void>((done) => server.close(() => done()))
  server.closeIdleConnections()
  traffic.closed = drain(traffic, graceMs)
    .then(beforeDrop)
    .then(() => {
      server.closeAllConnections()
      return stopped
    })
  return traffic.closed
}
