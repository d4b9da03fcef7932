/**
 * The request of OpenAI's `POST /v1/chat/completions`, as an io-ts codec (the server's one
 * boundary), and its reading into a {@link ChatFormat.Conversation} and sampling settings.
 * Fields mtrl does not act on are accepted when they ask for nothing (`frequency_penalty: 0`,
 * `user`, `parallel_tool_calls`); a setting that would change the output and is not
 * implemented is refused with its field name rather than silently ignored.
 *
 * Extensions (vLLM's names): `return_token_ids: true` adds the prompt's and each choice's exact
 * token ids to the response; `chat_template_kwargs` are extra variables for the Jinja chat
 * template (those the server sets itself cannot be overridden).
 *
 * @since 0.1.0
 */
import { Numbers } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import type * as ChatFormat from './ChatFormat.js'
import * as BoundedJson from './internal/boundedJson.js'
import * as ToolCheck from './internal/toolCheck.js'

const TextPart = t.type({ type: t.literal('text'), text: t.string })
/** String content or a list of text parts. @category codecs @since 0.1.0 */
export const Content = t.union([t.string, t.readonlyArray(TextPart)])

const FunctionCall = t.type({ name: t.string, arguments: t.string })
const ToolCallCodec = t.type({ id: t.string, type: t.literal('function'), function: FunctionCall })

const SystemMessage = t.intersection([
  t.type({ role: t.union([t.literal('system'), t.literal('developer')]), content: Content }),
  t.partial({ name: t.string })
])
const UserMessage = t.intersection([t.type({ role: t.literal('user'), content: Content }), t.partial({ name: t.string })])
const AssistantMessage = t.intersection([
  t.type({ role: t.literal('assistant') }),
  t.partial({ content: t.union([Content, t.null]), tool_calls: t.readonlyArray(ToolCallCodec), name: t.string, refusal: t.union([t.string, t.null]) })
])
const ToolMessage = t.intersection([t.type({ role: t.literal('tool'), content: Content, tool_call_id: t.string }), t.partial({ name: t.string })])

/** @category codecs @since 0.1.0 */
export const Message = t.union([SystemMessage, UserMessage, AssistantMessage, ToolMessage])
/** @category models @since 0.1.0 */
export type Message = t.TypeOf<typeof Message>

/** @category codecs @since 0.1.0 */
export const Tool = t.type({
  type: t.literal('function'),
  function: t.intersection([
    t.type({ name: t.string }),
    t.partial({ description: t.string, parameters: t.UnknownRecord, strict: t.union([t.boolean, t.null]) })
  ])
})

const ToolChoice = t.union([
  t.literal('none'),
  t.literal('auto'),
  t.literal('required'),
  t.type({ type: t.literal('function'), function: t.type({ name: t.string }) })
])

/** `codec` or `null` ("unset"); a bad value is reported against `codec` alone, so the message states its range. */
const Nullable = <C extends t.Mixed>(codec: C): t.Type<t.TypeOf<C> | null, t.OutputOf<C> | null, unknown> =>
  new t.Type<t.TypeOf<C> | null, t.OutputOf<C> | null, unknown>(
    codec.name,
    (u): u is t.TypeOf<C> | null => u === null || codec.is(u),
    (u, c) => (u === null ? t.success(null) : codec.validate(u, c)),
    (a) => (a === null ? null : (codec.encode(a) as t.OutputOf<C>))
  )

const JsonSchemaFormat = t.intersection([
  t.type({ name: t.string }),
  t.partial({ description: Nullable(t.string), schema: Nullable(t.UnknownRecord), strict: Nullable(t.boolean) })
])

/**
 * `response_format`: free text, any JSON object, or a value of a JSON Schema (`strict` as OpenAI
 * defines it: see `Grammar`).
 *
 * @category codecs
 * @since 0.2.0
 */
export const ResponseFormat = t.union([
  t.type({ type: t.literal('text') }),
  t.type({ type: t.literal('json_object') }),
  t.type({ type: t.literal('json_schema'), json_schema: JsonSchemaFormat })
])
/** @category models @since 0.2.0 */
export type ResponseFormat = t.TypeOf<typeof ResponseFormat>

const Temperature = Numbers.refine('a number in [0, 2]', (n) => n >= 0 && n <= 2)
const TopP = Numbers.refine('a number in (0, 1]', (n) => n > 0 && n <= 1)
const TopLogprobs = Numbers.refine('an integer in [0, 20]', (n) => Number.isInteger(n) && n >= 0 && n <= 20)
const Choices = Numbers.refine('an integer in [1, 16]', (n) => Number.isInteger(n) && n >= 1 && n <= 16)
const Seed = Numbers.refine('an integer', (n) => Number.isSafeInteger(n))
const Zero = Numbers.refine('0 (not supported by this server)', (n) => n === 0)

/**
 * The request body. `null` is accepted wherever OpenAI's clients send it for "unset".
 *
 * @category codecs
 * @since 0.1.0
 */
export const ChatRequest = t.intersection([
  t.type({ model: t.string, messages: t.readonlyArray(Message) }),
  t.partial({
    temperature: Nullable(Temperature),
    top_p: Nullable(TopP),
    max_tokens: Nullable(Numbers.PositiveInt),
    max_completion_tokens: Nullable(Numbers.PositiveInt),
    stop: Nullable(t.union([t.string, t.readonlyArray(t.string)])),
    n: Nullable(Choices),
    seed: Nullable(Seed),
    logprobs: Nullable(t.boolean),
    top_logprobs: Nullable(TopLogprobs),
    stream: Nullable(t.boolean),
    stream_options: Nullable(t.partial({ include_usage: t.boolean })),
    tools: Nullable(t.readonlyArray(Tool)),
    tool_choice: Nullable(ToolChoice),
    parallel_tool_calls: Nullable(t.boolean),
    frequency_penalty: Nullable(Zero),
    presence_penalty: Nullable(Zero),
    user: Nullable(t.string),
    return_token_ids: Nullable(t.boolean),
    // settings that change the output, read by `unsupported`
    response_format: Nullable(ResponseFormat),
    logit_bias: t.unknown,
    functions: t.unknown,
    function_call: t.unknown,
    chat_template_kwargs: t.unknown // template variables (vLLM's extension), checked by `unsupported`
  })
])
/** @category models @since 0.1.0 */
export type ChatRequest = t.TypeOf<typeof ChatRequest>

/**
 * A request's problem: the OpenAI error fields (`param` names the field).
 *
 * @category models
 * @since 0.1.0
 */
export interface Invalid {
  readonly message: string
  readonly param: string | null
  readonly code: string | null
}

const textOf = (content: t.TypeOf<typeof Content> | null | undefined): string =>
  content === null || content === undefined ? '' : typeof content === 'string' ? content : content.map((p) => p.text).join('')

/** A message's `name` (templates may print it: a tool's name on its result, a speaker's). */
const nameOf = (m: { readonly name?: string | undefined }): { readonly name?: string } => (m.name === undefined ? {} : { name: m.name })

/**
 * The conversation of a request: contents flattened to text, `developer` read as `system`,
 * tool-call arguments parsed into objects (templates render them as JSON objects).
 *
 * @category destructors
 * @since 0.1.0
 */
export const conversation = (request: ChatRequest): E.Either<Invalid, ChatFormat.Conversation> => {
  const messages: ChatFormat.Message[] = []
  for (const [i, m] of request.messages.entries()) {
    switch (m.role) {
      case 'system':
      case 'developer':
        messages.push({ role: 'system', content: textOf(m.content), ...nameOf(m) })
        break
      case 'user':
        messages.push({ role: 'user', content: textOf(m.content), ...nameOf(m) })
        break
      case 'tool':
        messages.push({ role: 'tool', content: textOf(m.content), toolCallId: m.tool_call_id, ...nameOf(m) })
        break
      case 'assistant': {
        const calls: ChatFormat.ToolCall[] = []
        for (const [j, c] of (m.tool_calls ?? []).entries()) {
          const parsed = BoundedJson.parse(c.function.arguments)
          const args = E.isRight(parsed) ? parsed.right : undefined
          if (typeof args !== 'object' || args === null || Array.isArray(args))
            return E.left({
              message: `messages.${i}.tool_calls.${j}.function.arguments: expected a JSON object in a string${E.isLeft(parsed) ? ` (${parsed.left})` : ''}`,
              param: `messages.${i}.tool_calls.${j}.function.arguments`,
              code: null
            })
          calls.push({ id: c.id, name: c.function.name, arguments: args as Record<string, unknown> })
        }
        messages.push({ role: 'assistant', content: textOf(m.content), toolCalls: calls, ...nameOf(m) })
      }
    }
  }
  if (messages.length === 0) return E.left({ message: 'messages: expected at least one message', param: 'messages', code: null })
  const kwargs = request.chat_template_kwargs
  const variables = typeof kwargs === 'object' && kwargs !== null && Object.keys(kwargs).length > 0 ? { variables: kwargs as Record<string, unknown> } : {}
  return E.right({ messages, tools: request.tool_choice === 'none' ? [] : (request.tools ?? []), ...variables })
}

/** Template variables the server sets itself (vLLM refuses overriding them too). */
const reservedVariables: ReadonlyArray<string> = ['messages', 'tools', 'add_generation_prompt', 'bos_token', 'eos_token', 'documents']

const absent = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0)

/**
 * The first setting of `request` that would change the output and that this server does not
 * implement, refused by name rather than silently ignored; then the checks OpenAI makes on
 * `tools` and `tool_choice` (names, JSON Schemas, a choice naming a given function).
 *
 * @category destructors
 * @since 0.2.0
 */
export const unsupported = (request: ChatRequest): Invalid | undefined => {
  const refuse = (param: string, message: string): Invalid => ({ message: `${param}: ${message}`, param, code: 'unsupported_parameter' })
  if (!absent(request.logit_bias)) return refuse('logit_bias', 'not supported by this server; leave it out or send {}')
  if (!absent(request.functions)) return refuse('functions', 'the legacy `functions` are not supported; send them as `tools`')
  if (!absent(request.function_call)) return refuse('function_call', 'the legacy `function_call` is not supported; use `tool_choice`')
  const kwargs = request.chat_template_kwargs
  if (kwargs != null && (typeof kwargs !== 'object' || Array.isArray(kwargs)))
    return { message: 'chat_template_kwargs: expected an object of template variables', param: 'chat_template_kwargs', code: null }
  const reserved = Object.keys(kwargs ?? {}).find((k) => reservedVariables.includes(k))
  if (reserved !== undefined)
    return {
      message: `chat_template_kwargs.${reserved}: set by the server from the request; it cannot be overridden`,
      param: `chat_template_kwargs.${reserved}`,
      code: null
    }
  return ToolCheck.problem(request.tools ?? [], request.tool_choice)
}

/**
 * The stop strings of a request (at most 4, none empty).
 *
 * @category destructors
 * @since 0.1.0
 */
export const stops = (request: ChatRequest): E.Either<Invalid, ReadonlyArray<string>> => {
  const s = request.stop ?? []
  const list = typeof s === 'string' ? [s] : s
  if (list.length > 4) return E.left({ message: `stop: at most 4 sequences, got ${list.length}`, param: 'stop', code: null })
  if (list.some((x) => x.length === 0)) return E.left({ message: 'stop: sequences must not be empty', param: 'stop', code: null })
  return E.right(list)
}
