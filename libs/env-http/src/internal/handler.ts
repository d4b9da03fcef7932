/**
 * The EnvServer's request handler: health check, bearer token, `GET` routes, then the body of a
 * `POST` (bounded by `maxBodyBytes`) handed to the `POST` routes.
 */
import type { Env } from '@mtrl/core'
import { Bearer } from '@mtrl/http'
import type * as http from 'node:http'
import type { Answer } from './answer.js'
import * as Body from './body.js'
import type * as Table from './table.js'

/** What the handler needs from the server. */
export interface Handler {
  /** When set, every route but `GET /` needs `Authorization: Bearer <token>`. */
  readonly token: string | undefined
  readonly spec: Env.EnvSpec
  readonly table: Table.Table
  readonly maxBodyBytes: number
  readonly post: (path: string, text: string) => Promise<Answer>
}

/** Answers `GET /list_envs` and `GET /spec`; 404 for any other path. */
const get = ({ table, spec }: Handler, path: string, res: http.ServerResponse): void => {
  if (path === '/list_envs') return Body.json(res, 200, table.ids())
  if (path === '/spec') return Body.json(res, 200, spec)
  return Body.error(res, 404, 'NotFound', `no route GET ${path}`)
}

/** Reads a `POST` body within the limit (413 beyond it) and sends what the `POST` routes answer. */
const post = async ({ maxBodyBytes, post: answer }: Handler, path: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
  const body = await Body.read(req, maxBodyBytes)
  if (body._tag === 'Aborted') return
  if (body._tag === 'TooLarge')
    return Body.error(res, 413, 'TooLarge', `the body has ${body.bytes} bytes; the limit is ${maxBodyBytes}`, {}, { connection: 'close' })
  const answered = await answer(path, body.text === '' ? '{}' : body.text)
  Body.json(res, answered.status, answered.body)
}

/** Handles one request, from the token check to the route's answer. */
export const handle =
  (handler: Handler) =>
  async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    const method = req.method ?? 'GET'
    if (method === 'GET' && path === '/') return Body.json(res, 200, 'ok')
    if (!Bearer.allows(handler.token, req.headers.authorization))
      return Body.error(res, 401, 'Unauthorized', 'missing or wrong bearer token', {}, { 'www-authenticate': 'Bearer' })
    if (method === 'GET') return get(handler, path, res)
    if (method !== 'POST') return Body.error(res, 405, 'MethodNotAllowed', `${method} is not served; use GET or POST`, {}, { allow: 'GET, POST' })
    return post(handler, path, req, res)
  }
