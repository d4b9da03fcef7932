/**
 * OpenAI chat completions on an {@link Engine}: a decoded {@link Request.ChatRequest} becomes
 * `n` sequences (the rendered prompt, the request's sampling), and their completions become the
 * `chat.completion` object, or, streaming, `chat.completion.chunk`s as tokens arrive. Free of
 * HTTP: `Server` carries these over the wire, and anything else (a test, an in-process agent)
 * can call them directly.
 *
 * `logprobs` are under the distribution each token was drawn from (temperature and top-p
 * applied; greedy reports temperature 1), the numbers an RL trainer needs as behaviour
 * log-probs; `top_logprobs` are from the tempered distribution before top-p.
 *
 * @since 0.1.0
 */
import { Rng, type Tokenizer } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Agent } from '@mtrl/policy'
import * as ChatFormat from './ChatFormat.js'
import * as Engine from './Engine.js'
import * as Grammar from './Grammar.js'
import * as RequestGrammar from './internal/requestGrammar.js'
import type * as Capture from './Capture.js'
import * as Choices from './internal/choices.js'
import * as ReplyText from './internal/replyText.js'
import * as Replies from './Replies.js'
import * as Request from './Request.js'
import type * as Response from './Response.js'
import * as CallStream from './internal/callStream.js'
import * as ToolCalls from './ToolCalls.js'

/**
 * A served model: its name in requests, tokenizer, chat format and engine.
 *
 * @category models
 * @since 0.1.0
 */
export interface Model {
  readonly name: string
  readonly tokenizer: Tokenizer.Tokenizer
  readonly format: ChatFormat.ChatFormat
  readonly engine: Engine.Engine
  /** The replies this model wrote, so that those sent back are rendered with their sampled ids. */
  readonly replies: Replies.Replies
  /** The grammars of constrained requests (structured output, forced tool calls). */
  readonly grammars: Grammar.Grammars
}

/**
 * A refused request: HTTP status and the OpenAI error fields.
 *
 * @category models
 * @since 0.1.0
 */
export interface Refusal extends Request.Invalid {
  readonly status: number
  readonly type: 'invalid_request_error' | 'not_found_error'
}

/**
 * - `name`: the model's id in requests (default `mtrl`);
 * - `chatTemplate`: a Jinja chat template to use in place of the tokenizer's own;
 * - `slots`, `maxLen` (default the agent's context), `prefillChunk`, `prefixCache`: the engine's.
 *
 * @category models
 * @since 0.1.0
 */
export interface ModelOptions {
  readonly name?: string
  readonly chatTemplate?: string
  readonly slots?: number
  readonly maxLen?: number
  readonly prefillChunk?: number
  readonly prefixCache?: boolean
}

/**
 * The model of an agent (a run's checkpoint, a Hugging Face folder): its policy on an engine, in
 * its chat format ({@link ChatFormat.forTokenizer}). `close` waits for what is in flight and
 * frees the engine; the agent stays the caller's.
 *
 * @example
 * import { Agent } from '@mtrl/policy'
 * import { Completions } from '@mtrl/serving'
 * declare const agent: Agent.Agent
 * const model = Completions.model(agent, { name: 'textworld-agent' })
 *
 * @category constructors
 * @since 0.1.0
 */
export const model = (agent: Agent.Agent, options: ModelOptions = {}): Model & { readonly close: () => Promise<void> } => {
  const engine = Engine.make(agent.policy, {
    maxLen: Math.min(options.maxLen ?? agent.contextLength, agent.policy.config.maxLen),
    ...(options.slots === undefined ? {} : { slots: options.slots }),
    ...(options.prefillChunk === undefined ? {} : { prefillChunk: options.prefillChunk }),
    ...(options.prefixCache === undefined ? {} : { prefixCache: options.prefixCache })
  })
  const format = ChatFormat.forTokenizer(agent.tokenizer, options.chatTemplate)
  const grammars = Grammar.make(agent.tokenizer, format.stopTokens)
  return {
    name: options.name ?? 'mtrl',
    tokenizer: agent.tokenizer,
    format,
    engine,
    replies: Replies.make(),
    grammars,
    close: async () => {
      await engine.close()
      grammars.dispose()
    }
  }
}

const invalid = (i: Request.Invalid, status = 400): Refusal => ({ ...i, status, type: 'invalid_request_error' })

/**
 * What a request asks the engine for, checked: the prompt ids, the token budget, one random
 * stream per choice.
 *
 * @category models
 * @since 0.1.0
 */
export interface Plan {
  readonly request: Request.ChatRequest
  readonly prompt: Int32Array
  readonly maxTokens: number
  readonly stops: ReadonlyArray<string>
  readonly toolSyntax: ToolCalls.Syntax | undefined
  readonly rngs: ReadonlyArray<Rng.Rng>
  /** Assistant messages of the prompt encoded from their text rather than taken as sampled. */
  readonly reencoded: number
  /** What the reply is constrained to (structured output, forced tool calls), if anything. */
  readonly grammar: Grammar.Spec | undefined
  /** The grammar compiled for the model ({@link prepare}). */
  readonly compiled?: Grammar.Compiled
}

/**
 * Checks a request against the model and renders its prompt. `draw` seeds the choices of a
 * request without `seed`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const plan =
  (model: Model, draw: () => number) =>
  (request: Request.ChatRequest): E.Either<Refusal, Plan> => {
    if (request.model !== model.name)
      return E.left({
        message: `The model \`${request.model}\` does not exist; this server serves \`${model.name}\``,
        param: 'model',
        code: 'model_not_found',
        status: 404,
        type: 'not_found_error'
      })
    if ((request.top_logprobs ?? 0) > 0 && request.logprobs !== true)
      return E.left(invalid({ message: 'top_logprobs: needs logprobs: true', param: 'top_logprobs', code: null }))
    const unsupported = Request.unsupported(request)
    if (unsupported !== undefined) return E.left(invalid(unsupported))
    const conversation = Request.conversation(request)
    if (E.isLeft(conversation)) return E.left(invalid(conversation.left))
    if (conversation.right.variables !== undefined && model.format.kind !== 'jinja')
      return E.left(
        invalid({ message: 'chat_template_kwargs: this model has no Jinja chat template to pass them to', param: 'chat_template_kwargs', code: null })
      )
    const tools = conversation.right.tools
    const detected = model.format.toolSyntax
    if (tools.length > 0 && detected._tag !== 'Found')
      return E.left(
        invalid({
          message: `tools: ${detected._tag === 'None' ? "this model's chat template writes no tool calls" : detected.reason}`,
          param: 'tools',
          code: null
        })
      )
    const stops = Request.stops(request)
    if (E.isLeft(stops)) return E.left(invalid(stops.left))
    // a format that structures every reply (gpt-oss's channels) is read even when no tools are offered
    const toolSyntax = detected._tag === 'Found' && (tools.length > 0 || ToolCalls.formats[detected.name].everyReply === true) ? detected.name : undefined
    const grammar = RequestGrammar.specOf(request, toolSyntax)
    if (E.isLeft(grammar)) return E.left(invalid(grammar.left))
    let misses = 0
    const prompt = model.format.render(conversation.right, (before, reply) => {
      const ids = model.replies.idsOf(before, reply)
      if (ids === undefined) misses += 1
      return ids
    })
    const reencoded = model.format.kind === 'turns' ? misses : conversation.right.messages.filter((m) => m.role === 'assistant').length
    if (E.isLeft(prompt)) return E.left(invalid({ message: `messages: ${prompt.left}`, param: 'messages', code: null }))
    const context = model.engine.maxLen
    const n = prompt.right.length
    const room = context - n
    if (room < 1)
      return E.left(
        invalid({
          message: `This model's maximum context length is ${context} tokens. However, your messages resulted in ${n} tokens.`,
          param: 'messages',
          code: 'context_length_exceeded'
        })
      )
    const asked = request.max_completion_tokens ?? request.max_tokens ?? undefined
    if (asked !== undefined && asked > room)
      return E.left(
        invalid({
          message: `This model's maximum context length is ${context} tokens. However, you requested ${n + asked} tokens (${n} in the messages, ${asked} in the completion).`,
          param: request.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens',
          code: 'context_length_exceeded'
        })
      )
    const seed = request.seed ?? undefined
    const rngs = Array.from({ length: request.n ?? 1 }, (_, i) => Rng.make(seed === undefined ? draw() : seed + i))
    return E.right({
      request,
      prompt: prompt.right,
      maxTokens: asked ?? room,
      stops: stops.right,
      toolSyntax,
      rngs,
      reencoded,
      grammar: grammar.right
    })
  }

/**
 * Compiles a plan's grammar for the model (nothing to do for an unconstrained plan); a grammar
 * the engine cannot compile refuses the request.
 *
 * @category constructors
 * @since 0.2.0
 */
export const prepare = async (model: Model, p: Plan): Promise<E.Either<Refusal, Plan>> => {
  if (p.grammar === undefined) return E.right(p)
  const compiled = await model.grammars.compile(p.grammar)()
  if (E.isRight(compiled)) return E.right({ ...p, compiled: compiled.right })
  const param = p.grammar._tag === 'ToolCalls' && p.grammar.otherwise === undefined ? 'tool_choice' : 'response_format'
  return E.left(invalid({ message: `${param}: ${compiled.left}`, param, code: null }))
}

/**
 * The `chat.completion` object of a plan (all choices decoded concurrently); `undefined` when
 * `signal` aborted it. Each choice's reply is remembered with its sampled ids (`Model.replies`)
 * and, with `record`, its call is recorded.
 *
 * @category evaluation
 * @since 0.1.0
 */
export const complete = async (
  model: Model,
  p: Plan,
  signal?: AbortSignal,
  record?: (call: Capture.Call) => void
): Promise<Response.ChatCompletion | undefined> => {
  // with stop strings, each choice ends at the token that completes one (decoding as it goes)
  const stopAt = (): ((token: Engine.Token) => boolean) => {
    if (p.stops.length === 0) return () => false
    const reply = ReplyText.make(model.tokenizer, p.stops, undefined)
    return (token) => reply.push(token.id)
  }
  const completions = await Promise.all(p.rngs.map((_, i) => Choices.submit(model, p, i, stopAt(), signal)))
  if (completions.some((c) => c.finish === 'aborted')) return undefined
  const choices = completions.map((c) => Choices.choiceOf(p, c, Choices.replyOf(model, p, c)))
  for (const c of choices) Choices.settle(model, p, c, record)
  const ids = p.request.return_token_ids === true
  return {
    id: Choices.completionId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: model.name,
    choices: choices.map((c, index) => ({
      index,
      message: {
        role: 'assistant',
        content: c.calls.length > 0 && c.content === '' ? null : c.content,
        ...(c.calls.length > 0 ? { tool_calls: c.calls } : {})
      },
      logprobs: p.request.logprobs === true ? { content: Choices.logprobsOf(model.tokenizer, c.completion) } : null,
      finish_reason: c.finish,
      ...(ids ? { token_ids: Array.from(c.completion.tokens) } : {})
    })),
    usage: Choices.usageOf(p, choices),
    ...(ids ? { prompt_token_ids: Array.from(p.prompt) } : {})
  }
}

/**
 * Streams a plan: `send` gets each `chat.completion.chunk` (a role chunk per choice first, then
 * content deltas as they become safe to show, the tool calls and the finish reason at the end,
 * and a usage chunk when `stream_options.include_usage`). Resolves when every choice is done;
 * false when `signal` aborted it. Replies are remembered and calls recorded as by {@link complete}.
 *
 * @category evaluation
 * @since 0.1.0
 */
export const stream = async (
  model: Model,
  p: Plan,
  send: (chunk: Response.ChatCompletionChunk) => void,
  signal?: AbortSignal,
  record?: (call: Capture.Call) => void
): Promise<boolean> => {
  const id = Choices.completionId()
  const created = Math.floor(Date.now() / 1000)
  const ids = p.request.return_token_ids === true
  const chunk = (choices: Response.ChatCompletionChunk['choices'], extra: Partial<Response.ChatCompletionChunk> = {}): Response.ChatCompletionChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: model.name,
    choices,
    ...extra
  })
  p.rngs.forEach((_, index) =>
    send(
      chunk(
        [{ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
        ids && index === 0 ? { prompt_token_ids: Array.from(p.prompt) } : {}
      )
    )
  )
  const run = async (index: number): Promise<Choices.Choice | undefined> => {
    const reply = ReplyText.make(model.tokenizer, p.stops, p.toolSyntax)
    const calls = CallStream.make()
    const syntax = p.toolSyntax
    let count = 0
    const onToken = (token: Engine.Token): boolean => {
      const stopped = reply.push(token.id)
      const content = reply.delta()
      // tool calls argument by argument, as their values are written whole
      const toolCalls = syntax === undefined ? [] : calls.update(ToolCalls.openCalls(syntax, p.request.tools ?? [])(reply.text()))
      const logprobs = p.request.logprobs === true ? { content: [Choices.tokenLogprob(model.tokenizer, token)] } : null
      count++
      const delta = toolCalls.length === 0 ? { content } : { ...(content.length > 0 ? { content } : {}), tool_calls: toolCalls }
      if (content.length > 0 || toolCalls.length > 0 || logprobs !== null || ids)
        send(chunk([{ index, delta, logprobs, finish_reason: null, ...(ids ? { token_ids: [token.id] } : {}) }]))
      return stopped
    }
    const completion = await Choices.submit(model, p, index, onToken, signal)
    if (completion.finish === 'aborted') return undefined
    let finishing: ReadonlyArray<Response.ToolCallDelta> = []
    const choice = Choices.choiceOf(p, completion, reply.text(), (parsed) => {
      const done = calls.finish(parsed)
      finishing = done.deltas
      return done.calls
    })
    Choices.settle(model, p, choice, record)
    const rest = choice.content.slice(reply.emitted()) // what was held back: trailing space, a stop string's false start
    const tail = completion.tokens.slice(count) // the stop token, which onToken never sees
    if (rest.length > 0) send(chunk([{ index, delta: { content: rest }, logprobs: null, finish_reason: null }]))
    if (finishing.length > 0) send(chunk([{ index, delta: { tool_calls: finishing }, logprobs: null, finish_reason: null }]))
    send(chunk([{ index, delta: {}, logprobs: null, finish_reason: choice.finish, ...(ids && tail.length > 0 ? { token_ids: Array.from(tail) } : {}) }]))
    return choice
  }
  const choices = await Promise.all(p.rngs.map((_, i) => run(i)))
  if (choices.some((c) => c === undefined)) return false
  if (p.request.stream_options?.include_usage === true) send(chunk([], { usage: Choices.usageOf(p, choices as ReadonlyArray<Choices.Choice>) }))
  return true
}
