/**
 * The OpenAI routes: `GET /v1/models`, `GET /v1/models/{id}`, `POST /v1/chat/completions` and
 * `POST /v1/responses`; anything else is a 404 (or a 405 for the wrong method on those two).
 */
import type * as http from 'node:http'
import type * as Completions from '../Completions.js'
import * as Body from './body.js'
import { chat } from './chatRoute.js'
import { responses } from './responsesRoute.js'
import type { RouteContext } from './routeContext.js'

/** OpenAI's model object for `model`. */
const modelObject = (model: Completions.Model, created: number) => ({
  id: model.name,
  object: 'model' as const,
  created,
  owned_by: 'mtrl',
  max_model_len: model.engine.maxLen
})

/** Answers a request for `path` (the URL's path, under `/v1`). */
export const api = async (context: RouteContext, req: http.IncomingMessage, res: http.ServerResponse, path: string): Promise<void> => {
  const { model } = context.options
  if (req.method === 'GET' && path === '/v1/models') return Body.json(res, 200, { object: 'list', data: [modelObject(model, context.created)] })
  if (req.method === 'GET' && path.startsWith('/v1/models/')) {
    const id = decodeURIComponent(path.slice('/v1/models/'.length))
    return id === model.name
      ? Body.json(res, 200, modelObject(model, context.created))
      : Body.fail(res, 404, `The model \`${id}\` does not exist`, 'not_found_error', 'model', 'model_not_found')
  }
  if (path === '/v1/chat/completions')
    return req.method === 'POST' ? chat(context, req, res) : Body.fail(res, 405, `${req.method} ${path}: use POST`, 'invalid_request_error')
  if (path === '/v1/responses')
    return req.method === 'POST' ? responses(context, req, res) : Body.fail(res, 405, `${req.method} ${path}: use POST`, 'invalid_request_error')
  return Body.fail(res, 404, `no route ${req.method} ${path}`, 'not_found_error')
}
