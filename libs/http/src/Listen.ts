/**
 * Listening: a server bound to a host and port (0: any free port), with its URL, or why not.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import type * as http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * The port could not be bound (in use, no permission, no such address).
 *
 * @category models
 * @since 0.1.0
 */
export interface ListenFailed {
  readonly _tag: 'ListenFailed'
  readonly host: string
  readonly port: number
  readonly reason: string
}

/** Where a server listens: `url` without a trailing slash, and the port bound. @category models @since 0.1.0 */
export interface Bound {
  readonly url: string
  readonly port: number
}

/**
 * `http://HOST:PORT`; an IPv6 host goes in brackets.
 *
 * @example
 * import { Listen } from '@mtrl/http'
 * Listen.urlOf('::1', 8000) // 'http://[::1]:8000'
 *
 * @category destructors
 * @since 0.1.0
 */
export const urlOf = (host: string, port: number): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}`

/**
 * Binds `server` to `host:port`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const listen = (server: http.Server, host: string, port: number): Promise<E.Either<ListenFailed, Bound>> =>
  new Promise((resolve) => {
    server.once('error', (error) => resolve(E.left({ _tag: 'ListenFailed', host, port, reason: error.message })))
    server.listen(port, host, () => {
      const bound = (server.address() as AddressInfo).port
      resolve(E.right({ url: urlOf(host, bound), port: bound }))
    })
  })
