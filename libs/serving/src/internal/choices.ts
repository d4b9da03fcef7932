/**
 * A plan's choices: each decoded on the engine under its own grammar matcher, then turned into the
 * response's pieces (content and tool calls, log-probs, usage), remembered with its sampled ids
 * and recorded for RL. What `Completions.complete` and `Completions.stream` share.
 */
import type { Tokenizer } from '@mtrl/core'
import { randomBytes } from 'node:crypto'
import type * as Capture from '../Capture.js'
import type { Model, Plan } from '../Completions.js'
import type * as Engine from '../Engine.js'
import type * as Grammar from '../Grammar.js'
import type * as Request from '../Request.js'
import type * as Response from '../Response.js'
import * as ToolCalls from '../ToolCalls.js'

export const completionId = (): string => `chatcmpl-${randomBytes(12).toString('hex')}`

/** One choice's tokens turned into the response's pieces. */
export interface Choice {
  readonly completion: Engine.Completion
  readonly content: string
  readonly calls: ReadonlyArray<Response.ToolCall>
  readonly finish: Response.FinishReason
}

export const toolCallsOf = (calls: ReadonlyArray<ToolCalls.Call>): ReadonlyArray<Response.ToolCall> =>
  calls.map((c) => ({
    id: `call_${randomBytes(8).toString('hex')}`,
    type: 'function' as const,
    function: { name: c.name, arguments: JSON.stringify(c.arguments) }
  }))

/** One choice's pieces; `sent` gives the calls their ids and arguments text (a stream's, as it sent them). */
export const choiceOf = (
  p: Plan,
  completion: Engine.Completion,
  text: string,
  sent: (calls: ReadonlyArray<ToolCalls.Call>) => ReadonlyArray<Response.ToolCall> = toolCallsOf
): Choice => {
  const parsed = p.toolSyntax === undefined ? { content: text, calls: [] } : ToolCalls.parse(p.toolSyntax, p.request.tools ?? [])(text)
  const calls = sent(parsed.calls)
  const finish = calls.length > 0 ? 'tool_calls' : completion.finish === 'length' ? 'length' : 'stop'
  return { completion, content: parsed.content, calls, finish }
}

export const entry = (tokenizer: Tokenizer.Tokenizer, id: number, logprob: number): Response.TopLogprob => {
  const token = tokenizer.decode([id])
  return { token, logprob, bytes: Array.from(Buffer.from(token, 'utf8')) }
}

export const tokenLogprob = (tokenizer: Tokenizer.Tokenizer, token: Engine.Token): Response.TokenLogprob => ({
  ...entry(tokenizer, token.id, token.logprob),
  top_logprobs: token.top.map((x) => entry(tokenizer, x.token, x.logprob))
})

export const logprobsOf = (tokenizer: Tokenizer.Tokenizer, c: Engine.Completion): ReadonlyArray<Response.TokenLogprob> =>
  Array.from(c.tokens, (id, i) => tokenLogprob(tokenizer, { id, logprob: c.logprobs[i]!, top: c.top[i] ?? [] }))

export const sequence = (
  model: Model,
  p: Plan,
  i: number,
  onToken: (token: Engine.Token) => boolean,
  signal: AbortSignal | undefined,
  grammar: Grammar.Matcher | undefined
): Engine.Sequence => ({
  prompt: p.prompt,
  maxTokens: p.maxTokens,
  sampling: { temperature: p.request.temperature ?? 1, ...(p.request.top_p == null ? {} : { topP: p.request.top_p }) },
  stopTokens: model.format.stopTokens,
  rng: p.rngs[i]!,
  topLogprobs: p.request.logprobs === true ? (p.request.top_logprobs ?? 0) : 0,
  onToken,
  ...(signal === undefined ? {} : { signal }),
  ...(grammar === undefined ? {} : { grammar })
})

/** Decodes choice `i` of a plan, under its own matcher of the plan's grammar (freed when done). */
export const submit = async (
  model: Model,
  p: Plan,
  i: number,
  onToken: (token: Engine.Token) => boolean,
  signal: AbortSignal | undefined
): Promise<Engine.Completion> => {
  const grammar = await p.compiled?.matcher()
  try {
    return await model.engine.submit(sequence(model, p, i, onToken, signal, grammar))
  } finally {
    grammar?.dispose()
  }
}

/** The reply's text: the tokens decoded once, without the stop token, cut at the first stop string. */
export const replyOf = (model: Model, p: Plan, completion: Engine.Completion): string => {
  const n = completion.tokens.length
  const stopped = n > 0 && model.format.stopTokens.includes(completion.tokens[n - 1]!)
  const text = model.tokenizer.decode(stopped ? completion.tokens.subarray(0, n - 1) : completion.tokens)
  const at = Math.min(...p.stops.map((s) => text.indexOf(s)).filter((i) => i >= 0))
  return Number.isFinite(at) ? text.slice(0, at) : text
}

/** A finished choice: its reply remembered with its sampled ids, its call recorded. */
export const settle = (model: Model, p: Plan, choice: Choice, record: ((call: Capture.Call) => void) | undefined): void => {
  const { tokens, logprobs } = choice.completion
  model.replies.remember(
    p.prompt,
    { content: choice.content, toolCalls: choice.calls.map((c) => ({ name: c.function.name, arguments: JSON.parse(c.function.arguments) as unknown })) },
    tokens
  )
  const masks = choice.completion.masks
  record?.({
    prompt: p.prompt,
    completion: tokens,
    logprobs,
    reencoded: p.reencoded,
    transcript: transcriptOf(p.request, choice),
    ...(masks === undefined ? {} : { masks })
  })
}

export const callLines = (calls: ReadonlyArray<{ readonly name: string; readonly arguments: string }>): ReadonlyArray<string> =>
  calls.map((c) => `${c.name}(${c.arguments})`)

/** A call's conversation as text: the request's messages, then the reply. */
export const transcriptOf = (request: Request.ChatRequest, choice: Choice): ReadonlyArray<Capture.TranscriptMessage> => {
  const text = (content: unknown): string =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((part: { text?: unknown }) => (typeof part.text === 'string' ? part.text : '')).join('')
        : ''
  const messages = request.messages.map((m): Capture.TranscriptMessage => {
    const calls = m.role === 'assistant' ? callLines((m.tool_calls ?? []).map((c) => c.function)) : []
    return { role: m.role, content: [text(m.content), ...calls].filter((s) => s.length > 0).join('\n') }
  })
  return [
    ...messages,
    { role: 'assistant', content: [choice.content, ...callLines(choice.calls.map((c) => c.function))].filter((s) => s.length > 0).join('\n') }
  ]
}

export const usageOf = (p: Plan, choices: ReadonlyArray<Choice>): Response.Usage => {
  const completionTokens = choices.reduce((s, c) => s + c.completion.tokens.length, 0)
  const cached = Math.max(0, ...choices.map((c) => c.completion.cachedTokens))
  return {
    prompt_tokens: p.prompt.length,
    completion_tokens: completionTokens,
    total_tokens: p.prompt.length + completionTokens,
    prompt_tokens_details: { cached_tokens: cached }
  }
}
