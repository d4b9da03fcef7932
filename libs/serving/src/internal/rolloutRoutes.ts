/**
 * An agent run's own routes, `/rollouts/<id>/...`: the OpenAI API with every chat completion
 * recorded as the run's, and `POST /rollouts/<id>/reward`.
 */
import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type * as http from 'node:http'
import * as Rollouts from '../Rollouts.js'
import * as Body from './body.js'
import * as BoundedJson from './boundedJson.js'
import { chat } from './chatRoute.js'
import { responses } from './responsesRoute.js'
import { api } from './openAiRoutes.js'
import type { RouteContext } from './routeContext.js'

/** `POST /rollouts/<id>/reward`: the run's reward (a body of at most 64 KiB). */
const reward = async (context: RouteContext, req: http.IncomingMessage, res: http.ServerResponse, id: string): Promise<void> => {
  const body = await Body.read(req, 65_536)
  if (body._tag !== 'Read')
    return body._tag === 'TooLarge' ? Body.fail(res, 413, 'the body is over the limit of 65536 bytes', 'invalid_request_error') : undefined
  const json = BoundedJson.parse(body.text)
  if (E.isLeft(json)) return Body.fail(res, 400, `the body is not JSON: ${json.left}`, 'invalid_request_error')
  const decoded = Decode.decode('reward', Rollouts.Reward)(json.right)
  if (E.isLeft(decoded))
    return Body.fail(
      res,
      400,
      `${Decode.formatError(decoded.left)}\n(send {"reward": number} or {"rewards": [number, ...]})`,
      'invalid_request_error',
      'reward'
    )
  return context.options.rollouts!.reward(id, decoded.right)
    ? Body.json(res, 200, { ok: true })
    : Body.fail(res, 404, `no open rollout ${id}`, 'not_found_error')
}

/** `/rollouts/<id><rest>`: the run's own API, its calls recorded; a 404 when no such run is open. */
export const rollout = (context: RouteContext, req: http.IncomingMessage, res: http.ServerResponse, id: string, rest: string): Promise<void> | void => {
  const runs = context.options.rollouts
  if (runs?.get(id) === undefined) return Body.fail(res, 404, `no open rollout ${id}`, 'not_found_error')
  if (rest === '/reward')
    return req.method === 'POST'
      ? reward(context, req, res, id)
      : Body.fail(res, 405, `${req.method} /rollouts/${id}/reward: use POST`, 'invalid_request_error')
  if (rest === '/v1/chat/completions' && req.method === 'POST') return chat(context, req, res, (call) => void runs.record(id, call))
  if (rest === '/v1/responses' && req.method === 'POST') return responses(context, req, res, (call) => void runs.record(id, call))
  return api(context, req, res, rest)
}
