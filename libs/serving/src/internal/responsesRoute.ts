/**
 * `POST /v1/responses` (and a rollout's own): the body read and decoded, the conversation of
 * `previous_response_id` taken from the server's memory, the request read as a chat completion
 * and run by `Completions` (sampled, constrained and recorded as a chat completion is), and the
 * reply answered as a `response` object or streamed as its events. The conversation then
 * stored is what a next request naming this response continues.
 */
import { Decode } from '@mtrl/core'
import { Sse } from '@mtrl/http'
import * as E from 'fp-ts/lib/Either.js'
import type * as http from 'node:http'
import type * as Capture from '../Capture.js'
import * as Completions from '../Completions.js'
import type * as Request from '../Request.js'
import * as Responses from '../Responses.js'
import * as Body from './body.js'
import * as BoundedJson from './boundedJson.js'
import * as Objects from './responseObjects.js'
import * as ResponseStream from './responseStream.js'
import type { RouteContext } from './routeContext.js'

const refusal = (message: string, param: string | null, status = 400, code: string | null = null): Completions.Refusal => ({
  status,
  type: 'invalid_request_error',
  message,
  param,
  code
})

/** The request decoded and read as a chat completion request (after its previous response's conversation). */
const read = (
  context: RouteContext,
  text: string
): E.Either<Completions.Refusal, { readonly request: Responses.ResponseRequest; readonly chat: Request.ChatRequest }> => {
  const json = BoundedJson.parse(text)
  if (E.isLeft(json)) return E.left(refusal(`the body is not JSON: ${json.left}`, null))
  const decoded = Decode.decode('response request', Responses.ResponseRequest)(json.right)
  if (E.isLeft(decoded)) return E.left(refusal(Decode.formatError(decoded.left), decoded.left.issues[0]?.path ?? null))
  const request = decoded.right
  const previous = request.previous_response_id
  const history = previous == null ? [] : context.conversations.get(previous)
  if (history === undefined)
    return E.left(refusal(`Previous response with id '${previous}' not found (this server keeps its last responses in memory).`, 'previous_response_id'))
  const chat = Responses.toChat(request, history)
  return E.isLeft(chat) ? E.left(refusal(chat.left.message, chat.left.param, 400, chat.left.code)) : E.right({ request, chat: chat.right })
}

/** The conversation to keep: the request's messages (its instructions aside) and the reply as an assistant message. */
const conversationAfter = (
  chat: Request.ChatRequest,
  request: Responses.ResponseRequest,
  output: ReadonlyArray<Objects.OutputItem>
): ReadonlyArray<Request.Message> => {
  const messages = request.instructions == null ? chat.messages : chat.messages.slice(1)
  const text = output.flatMap((i) => (i.type === 'message' ? i.content.map((c) => c.text) : [])).join('')
  const calls = output.flatMap((i) =>
    i.type === 'function_call' ? [{ id: i.call_id, type: 'function' as const, function: { name: i.name, arguments: i.arguments } }] : []
  )
  return [...messages, { role: 'assistant', content: calls.length > 0 && text === '' ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }]
}

/** Answers a Responses request; `record` sees the call when it belongs to a rollout. */
export const responses = async (
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
  const input = read(context, body.text)
  const checked = E.chain((i: { readonly chat: Request.ChatRequest }) => context.planOf(i.chat))(input)
  const planned = E.isRight(checked) ? await Completions.prepare(model, checked.right) : checked
  if (E.isLeft(input) || E.isLeft(planned)) {
    const r = E.isLeft(input) ? input.left : (planned as E.Left<Completions.Refusal>).left
    return Body.fail(res, r.status, r.message, r.type, r.param, r.code)
  }
  const { request, chat } = input.right
  const id = Objects.newId()
  const created = Math.floor(Date.now() / 1000)
  const aborted = new AbortController()
  res.on('close', () => {
    if (!res.writableEnded) aborted.abort()
  })
  const keep = (output: ReadonlyArray<Objects.OutputItem>): void => {
    if (request.store !== false) context.conversations.set(id, conversationAfter(chat, request, output))
  }
  if (request.stream !== true) {
    const done = await Completions.complete(model, planned.right, aborted.signal, record)
    if (done === undefined) return
    const choice = done.choices[0]!
    const output = Objects.outputOf(choice.message.content, choice.message.tool_calls ?? [], choice.logprobs?.content)
    keep(output)
    const status = choice.finish_reason === 'length' ? 'incomplete' : 'completed'
    return Body.json(res, 200, Objects.response(id, model.name, request, created, { status, output, usage: Objects.usageOf(done.usage) }))
  }
  Sse.open(res)
  const stream = ResponseStream.make(id, model.name, request, created, (event) => Sse.send(res, event, event.type))
  const finished = await Completions.stream(model, planned.right, stream.chunk, aborted.signal, record)
  if (!finished) return
  keep(stream.output())
  Sse.end(res)
}
