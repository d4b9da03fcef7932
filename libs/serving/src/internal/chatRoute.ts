/**
 * `POST /v1/chat/completions` (and a rollout's own): the body read under the limit, decoded
 * and planned, then completed as one JSON answer or streamed as server-sent events ending
 * `data: [DONE]`. A client that goes away aborts its choices.
 */
import { Decode } from '@mtrl/core'
import { Sse } from '@mtrl/http'
import * as E from 'fp-ts/lib/Either.js'
import type * as http from 'node:http'
import type * as Capture from '../Capture.js'
import * as Completions from '../Completions.js'
import * as Request from '../Request.js'
import * as Body from './body.js'
import * as BoundedJson from './boundedJson.js'
import type { RouteContext } from './routeContext.js'

/** The request decoded, or the answer that refuses it. */
const decodeRequest = (text: string): E.Either<Completions.Refusal, Request.ChatRequest> => {
  const json = BoundedJson.parse(text)
  if (E.isLeft(json)) return E.left({ status: 400, type: 'invalid_request_error', message: `the body is not JSON: ${json.left}`, param: null, code: null })
  const decoded = Decode.decode('chat completion request', Request.ChatRequest)(json.right)
  if (E.isRight(decoded)) return decoded
  const first = decoded.left.issues[0]
  return E.left({ status: 400, type: 'invalid_request_error', message: Decode.formatError(decoded.left), param: first?.path ?? null, code: null })
}

/** A signal that aborts when the client closes the connection before the answer ends. */
const abortOnClientGone = (res: http.ServerResponse): AbortSignal => {
  const aborted = new AbortController()
  res.on('close', () => {
    if (!res.writableEnded) aborted.abort()
  })
  return aborted.signal
}

/** Answers a chat completion request; `record` sees the call when it belongs to a rollout. */
export const chat = async (
  context: RouteContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  record?: (call: Capture.Call) => void
): Promise<void> => {
  const { options } = context
  const model = options.model
  const body = await Body.read(req, options.maxBodyBytes ?? 4 << 20)
  if (body._tag === 'Aborted') return
  if (body._tag === 'TooLarge') return Body.fail(res, 413, `the body is over the limit of ${options.maxBodyBytes ?? 4 << 20} bytes`, 'invalid_request_error')
  const checked = E.chain(context.planOf)(decodeRequest(body.text))
  const planned = E.isRight(checked) ? await Completions.prepare(model, checked.right) : checked
  if (E.isLeft(planned)) return Body.fail(res, planned.left.status, planned.left.message, planned.left.type, planned.left.param, planned.left.code)
  const signal = abortOnClientGone(res)
  if (planned.right.request.stream !== true) {
    const done = await Completions.complete(model, planned.right, signal, record)
    if (done !== undefined) Body.json(res, 200, done)
    return
  }
  Sse.open(res)
  const finished = await Completions.stream(model, planned.right, (chunk) => Sse.send(res, chunk), signal, record)
  if (finished) Sse.end(res, '[DONE]')
}
