/**
 * OpenAI's Responses API (`POST /v1/responses`), the subset `@openai/agents` and the `ai` SDK's
 * responses provider use: `input` (a string or items: messages, `function_call`,
 * `function_call_output`), `instructions`, function `tools`, `tool_choice`, `text.format`
 * (structured output), `max_output_tokens`, `temperature`, `top_p`, `parallel_tool_calls`,
 * `previous_response_id` (a conversation the server keeps in memory), `stream`. A request is
 * read into a Chat Completions request and run by {@link Completions}, so the reply is sampled,
 * constrained and captured for RL exactly as a chat completion is (token-exact). Hosted tools
 * (web search, file search, computer use) and reasoning settings are refused by name.
 *
 * @since 0.2.0
 */
import { Numbers } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type * as Request from './Request.js'

const Nullable = <C extends t.Mixed>(codec: C): t.Type<t.TypeOf<C> | null, t.OutputOf<C> | null, unknown> =>
  new t.Type<t.TypeOf<C> | null, t.OutputOf<C> | null, unknown>(
    codec.name,
    (u): u is t.TypeOf<C> | null => u === null || codec.is(u),
    (u, c) => (u === null ? t.success(null) : codec.validate(u, c)),
    (a) => (a === null ? null : (codec.encode(a) as t.OutputOf<C>))
  )

const TextPart = t.intersection([
  t.type({ type: t.union([t.literal('input_text'), t.literal('output_text')]), text: t.string }),
  t.partial({ annotations: t.unknown })
])
const MessageItem = t.intersection([
  t.type({
    role: t.union([t.literal('user'), t.literal('system'), t.literal('developer'), t.literal('assistant')]),
    content: t.union([t.string, t.readonlyArray(TextPart)])
  }),
  t.partial({ type: t.literal('message'), id: t.string, status: t.string })
])
const FunctionCallItem = t.intersection([
  t.type({ type: t.literal('function_call'), call_id: t.string, name: t.string, arguments: t.string }),
  t.partial({ id: t.string, status: t.string })
])
const FunctionCallOutputItem = t.intersection([
  t.type({ type: t.literal('function_call_output'), call_id: t.string, output: t.union([t.string, t.readonlyArray(TextPart)]) }),
  t.partial({ id: t.string, status: t.string })
])

/** @category codecs @since 0.2.0 */
export const InputItem = t.union([MessageItem, FunctionCallItem, FunctionCallOutputItem])
/** @category models @since 0.2.0 */
export type InputItem = t.TypeOf<typeof InputItem>

const FunctionTool = t.intersection([
  t.type({ type: t.literal('function'), name: t.string }),
  t.partial({ description: Nullable(t.string), parameters: Nullable(t.UnknownRecord), strict: Nullable(t.boolean) })
])
const TextFormat = t.union([
  t.type({ type: t.literal('text') }),
  t.type({ type: t.literal('json_object') }),
  t.intersection([
    t.type({ type: t.literal('json_schema'), name: t.string, schema: t.UnknownRecord }),
    t.partial({ description: Nullable(t.string), strict: Nullable(t.boolean) })
  ])
])
const ToolChoice = t.union([t.literal('none'), t.literal('auto'), t.literal('required'), t.type({ type: t.literal('function'), name: t.string })])

/**
 * The request body. Fields mtrl does not act on are accepted when they ask for nothing
 * (`store`, `metadata`, `user`, `truncation: "disabled"`, `include`); `tools` other than
 * functions and a non-empty `reasoning` are refused by name ({@link toChat}).
 *
 * @category codecs
 * @since 0.2.0
 */
export const ResponseRequest = t.intersection([
  t.type({ model: t.string, input: t.union([t.string, t.readonlyArray(InputItem)]) }),
  t.partial({
    instructions: Nullable(t.string),
    tools: Nullable(t.readonlyArray(t.union([FunctionTool, t.type({ type: t.string })]))),
    tool_choice: Nullable(ToolChoice),
    parallel_tool_calls: Nullable(t.boolean),
    text: Nullable(t.partial({ format: Nullable(TextFormat) })),
    temperature: Nullable(Numbers.refine('a number in [0, 2]', (n) => n >= 0 && n <= 2)),
    top_p: Nullable(Numbers.refine('a number in (0, 1]', (n) => n > 0 && n <= 1)),
    max_output_tokens: Nullable(Numbers.PositiveInt),
    top_logprobs: Nullable(Numbers.refine('an integer in [0, 20]', (n) => Number.isInteger(n) && n >= 0 && n <= 20)),
    include: Nullable(t.readonlyArray(t.string)),
    previous_response_id: Nullable(t.string),
    stream: Nullable(t.boolean),
    store: Nullable(t.boolean),
    metadata: Nullable(t.UnknownRecord),
    user: Nullable(t.string),
    truncation: Nullable(t.union([t.literal('disabled'), t.literal('auto')])),
    reasoning: t.unknown,
    return_token_ids: Nullable(t.boolean)
  })
])
/** @category models @since 0.2.0 */
export type ResponseRequest = t.TypeOf<typeof ResponseRequest>

type ChatMessage = Request.Message

const textOf = (content: string | ReadonlyArray<{ readonly text: string }>): string =>
  typeof content === 'string' ? content : content.map((p) => p.text).join('')

/** Chat messages of input items: function calls join the assistant message before them (or make one), outputs become tool messages. */
export const messagesOf = (items: ReadonlyArray<InputItem>): ReadonlyArray<ChatMessage> => {
  const out: ChatMessage[] = []
  for (const item of items) {
    if ('role' in item) {
      out.push({ role: item.role, content: textOf(item.content) } as ChatMessage)
      continue
    }
    if (item.type === 'function_call_output') {
      out.push({ role: 'tool', tool_call_id: item.call_id, content: textOf(item.output) })
      continue
    }
    const call = { id: item.call_id, type: 'function' as const, function: { name: item.name, arguments: item.arguments } }
    const last = out[out.length - 1]
    if (last?.role === 'assistant') out[out.length - 1] = { ...last, tool_calls: [...(last.tool_calls ?? []), call] }
    else out.push({ role: 'assistant', content: null, tool_calls: [call] })
  }
  return out
}

const refuse = (param: string, message: string): Request.Invalid => ({ message: `${param}: ${message}`, param, code: 'unsupported_parameter' })

/**
 * The Chat Completions request of a Responses request, after `history` (the messages of the
 * conversation `previous_response_id` names; its instructions are not carried over, as
 * OpenAI's are not).
 *
 * @category destructors
 * @since 0.2.0
 */
export const toChat = (request: ResponseRequest, history: ReadonlyArray<ChatMessage>): E.Either<Request.Invalid, Request.ChatRequest> => {
  const reasoning = request.reasoning as { readonly effort?: unknown; readonly summary?: unknown } | null | undefined
  if (reasoning != null && (reasoning.effort != null || reasoning.summary != null))
    return E.left(refuse('reasoning', 'this model does not reason; leave it out'))
  const tools: Array<NonNullable<Request.ChatRequest['tools']>[number]> = []
  for (const [i, tool] of (request.tools ?? []).entries()) {
    if (tool.type !== 'function' || !('name' in tool))
      return E.left(refuse(`tools.${i}.type`, `${JSON.stringify(tool.type)} tools are not served here; only function tools`))
    const f = tool as t.TypeOf<typeof FunctionTool>
    tools.push({
      type: 'function',
      function: {
        name: f.name,
        ...(f.description == null ? {} : { description: f.description }),
        ...(f.parameters == null ? {} : { parameters: f.parameters }),
        ...(f.strict == null ? {} : { strict: f.strict })
      }
    })
  }
  const format = request.text?.format
  const choice = request.tool_choice
  const input = typeof request.input === 'string' ? [{ role: 'user' as const, content: request.input }] : messagesOf(request.input)
  const logprobs = request.include?.includes('message.output_text.logprobs') === true
  return E.right({
    model: request.model,
    messages: [...(request.instructions == null ? [] : [{ role: 'system' as const, content: request.instructions }]), ...history, ...input],
    ...(tools.length > 0 ? { tools } : {}),
    ...(choice == null ? {} : { tool_choice: typeof choice === 'string' ? choice : { type: 'function' as const, function: { name: choice.name } } }),
    ...(request.parallel_tool_calls == null ? {} : { parallel_tool_calls: request.parallel_tool_calls }),
    ...(format == null
      ? {}
      : {
          response_format:
            format.type === 'json_schema'
              ? {
                  type: 'json_schema' as const,
                  json_schema: { name: format.name, schema: format.schema, ...(format.strict == null ? {} : { strict: format.strict }) }
                }
              : { type: format.type }
        }),
    ...(request.temperature == null ? {} : { temperature: request.temperature }),
    ...(request.top_p == null ? {} : { top_p: request.top_p }),
    ...(request.max_output_tokens == null ? {} : { max_completion_tokens: request.max_output_tokens }),
    ...(logprobs ? { logprobs: true, top_logprobs: request.top_logprobs ?? 0 } : {}),
    ...(request.return_token_ids === true ? { return_token_ids: true } : {}),
    stream: request.stream === true,
    ...(request.stream === true ? { stream_options: { include_usage: true } } : {})
  })
}
