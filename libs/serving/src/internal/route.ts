/**
 * Where a request goes: `GET /health` (and `GET /`) open to all; every other route behind the
 * bearer token when the server has one; a rollout's routes; the OpenAI routes.
 */
import { Bearer } from '@mtrl/http'
import type * as http from 'node:http'
import * as Body from './body.js'
import { api } from './openAiRoutes.js'
import { rollout } from './rolloutRoutes.js'
import type { RouteContext } from './routeContext.js'

/** Answers one request. */
export const route = async (context: RouteContext, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
  const { token } = context.options
  const path = (req.url ?? '/').split('?')[0]!
  if (req.method === 'GET' && (path === '/health' || path === '/')) return Body.json(res, 200, { status: 'ok' })
  if (!Bearer.allows(token, req.headers.authorization))
    return Body.fail(res, 401, 'a bearer token is required: Authorization: Bearer <token>', 'invalid_request_error', null, 'invalid_api_key')
  const run = /^\/rollouts\/([A-Za-z0-9_-]{1,64})(\/.*)$/.exec(path)
  if (run !== null) return rollout(context, req, res, run[1]!, run[2]!)
  return api(context, req, res, path)
}
