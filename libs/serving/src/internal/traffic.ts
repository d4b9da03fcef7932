/**
 * The requests in flight: the 503 once the server is shutting down, the 429 beyond the limit,
 * the 500 for a route that throws, and the graceful close that waits for those in flight.
 */
import type * as http from 'node:http'
import * as Body from './body.js'

export interface Traffic {
  inFlight: number
  closing: boolean
  /** Called when the last request in flight ends, while `close` waits for it. */
  drained: (() => void) | undefined
}

/** No request in flight, open. */
export const make = (): Traffic => ({ inFlight: 0, closing: false, drained: undefined })

/** A request listener that counts requests through `route`, refusing them while closing or beyond `maxRequests`. */
export const listener =
  (traffic: Traffic, maxRequests: number, route: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>) =>
  (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (traffic.closing) return Body.fail(res, 503, 'the server is shutting down', 'server_error')
    if (traffic.inFlight >= maxRequests)
      return Body.fail(res, 429, `too many requests at once (${maxRequests}); retry later`, 'rate_limit_error', null, 'rate_limit_exceeded')
    traffic.inFlight++
    route(req, res)
      .catch((error: unknown) => Body.fail(res, 500, `internal error: ${error instanceof Error ? error.message : String(error)}`, 'server_error'))
      .finally(() => {
        traffic.inFlight--
        if (traffic.inFlight === 0) traffic.drained?.()
      })
  }

/** Refuses new requests, waits up to `graceMs` for those in flight, then drops every connection and stops `server`. */
export const close = async (server: http.Server, traffic: Traffic, graceMs: number): Promise<void> => {
  traffic.closing = true
  const stopped = new Promise<void>((done) => server.close(() => done()))
  if (traffic.inFlight > 0)
    await Promise.race([new Promise<void>((done) => (traffic.drained = done)), new Promise((done) => setTimeout(done, graceMs).unref())])
  server.closeAllConnections()
  await stopped
}
