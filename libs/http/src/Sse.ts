/**
 * Server-sent events: an answer opened as `text/event-stream`, each event a `data:` line of
 * JSON (with an `event:` name when given), ended by a last line such as `data: [DONE]`.
 *
 * @since 0.1.0
 */
import type { ServerResponse } from 'node:http'

/**
 * Opens the stream (status 200, no caching, the connection kept open).
 *
 * @category constructors
 * @since 0.1.0
 */
export const open = (res: ServerResponse): void =>
  void res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' })

/**
 * One event's text: `event: NAME` when named, then `data: JSON`, then a blank line.
 *
 * @example
 * import { Sse } from '@mtrl/http'
 * Sse.format({ n: 1 }) // 'data: {"n":1}\n\n'
 * Sse.format({ n: 1 }, 'tick') // 'event: tick\ndata: {"n":1}\n\n'
 *
 * @category destructors
 * @since 0.1.0
 */
export const format = (data: unknown, event?: string): string => `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`

/**
 * Sends one event.
 *
 * @category destructors
 * @since 0.1.0
 */
export const send = (res: ServerResponse, data: unknown, event?: string): boolean => res.write(format(data, event))

/**
 * Ends the stream, after a last raw `data:` line when given (`[DONE]` for OpenAI's streams).
 *
 * @category destructors
 * @since 0.1.0
 */
export const end = (res: ServerResponse, last?: string): void => void res.end(last === undefined ? undefined : `data: ${last}\n\n`)
