/**
 * A policy served by any OpenAI-compatible endpoint (`POST {baseUrl}/chat/completions`: OpenAI,
 * vLLM, SGLang, llama.cpp, Ollama ...), for evaluation and for collecting data. The API key is
 * read from an environment variable, never from a recipe. Requests are limited to
 * `concurrency` at a time, time out per attempt, and are retried with back-off on 408, 429,
 * 5xx, timeouts and broken connections (a completion request has no side effect).
 *
 * @since 0.1.0
 */
import { Decode, type Chat } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import type { Agent } from './Episode.js'
import * as Http from './internal/http.js'
import * as Semaphore from './internal/semaphore.js'

/**
 * - `baseUrl`: up to and including `/v1`, e.g. `http://127.0.0.1:8000/v1`;
 * - `model`: the served model's name;
 * - `apiKeyEnv`: the environment variable holding the key (default `OPENAI_API_KEY`; no key, no header);
 * - `temperature` (default 0), `maxTokens` (default 256), `stop`;
 * - `concurrency`: requests in flight at most (default 4);
 * - `retries` (default 3), `timeoutMs` per attempt (default 60 000), `backoffMs` (default 500).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.intersection([
  t.type({ baseUrl: t.string, model: t.string }),
  t.partial({
    apiKeyEnv: t.string,
    temperature: t.number,
    maxTokens: t.number,
    stop: t.readonlyArray(t.string),
    concurrency: t.number,
    retries: t.number,
    timeoutMs: t.number,
    backoffMs: t.number
  })
])
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/** @category constructors @since 0.1.0 */
export const defaultOptions = {
  apiKeyEnv: 'OPENAI_API_KEY',
  temperature: 0,
  maxTokens: 256,
  concurrency: 4,
  retries: 3,
  timeoutMs: 60_000,
  backoffMs: 500
} as const

/**
 * Why a completion failed; `call` is `POST <url>`.
 *
 * @category models
 * @since 0.1.0
 */
export type ChatError =
  | { readonly _tag: 'Timeout'; readonly call: string; readonly ms: number; readonly attempts: number }
  | { readonly _tag: 'Transport'; readonly call: string; readonly reason: string; readonly attempts: number }
  | { readonly _tag: 'Status'; readonly call: string; readonly status: number; readonly body: string; readonly attempts: number }
  | { readonly _tag: 'InvalidResponse'; readonly call: string; readonly reason: string }

/** @category destructors @since 0.1.0 */
export const message = (error: ChatError): string => {
  const tries = 'attempts' in error && error.attempts > 1 ? ` (after ${error.attempts} attempts)` : ''
  switch (error._tag) {
    case 'Timeout':
      return `${error.call} timed out after ${error.ms} ms${tries}`
    case 'Transport':
      return `${error.call} failed: ${error.reason}${tries}`
    case 'Status':
      return `${error.call} answered HTTP ${error.status}: ${error.body}${tries}`
    case 'InvalidResponse':
      return `${error.call} returned an invalid response: ${error.reason}`
  }
}

/**
 * The part of a chat completion this policy reads.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Completion = t.intersection([
  t.type({ choices: t.readonlyArray(t.type({ message: t.type({ content: t.union([t.string, t.null]) }) })) }),
  t.partial({ usage: t.partial({ prompt_tokens: t.number, completion_tokens: t.number }) })
])
/** @category models @since 0.1.0 */
export type Completion = t.TypeOf<typeof Completion>

/**
 * Token counts reported by the server, summed over successful requests.
 *
 * @category models
 * @since 0.1.0
 */
export interface Usage {
  readonly requests: number
  readonly promptTokens: number
  readonly completionTokens: number
}

/**
 * `complete(messages)` is the assistant's reply; `agent` plays episodes with it (see `Episode`).
 *
 * @category models
 * @since 0.1.0
 */
export interface ChatPolicy {
  readonly complete: (messages: ReadonlyArray<Chat.Message>) => TE.TaskEither<ChatError, string>
  readonly agent: Agent
  readonly usage: () => Usage
}

/** A failed request to the chat server as a `ChatError` naming the call. */
const chatErrorOf =
  (call: string) =>
  (failure: Http.HttpFailure): ChatError => {
    switch (failure._tag) {
      case 'Timeout':
        return { _tag: 'Timeout', call, ms: failure.ms, attempts: failure.attempts }
      case 'Transport':
        return { _tag: 'Transport', call, reason: failure.reason, attempts: failure.attempts }
      case 'Status':
        return { _tag: 'Status', call, status: failure.status, body: failure.body, attempts: failure.attempts }
      case 'Json':
        return { _tag: 'InvalidResponse', call, reason: Http.describeFailure(failure) }
    }
  }

/**
 * A policy for `options`; the key is read from `environment[options.apiKeyEnv]` now.
 *
 * @example
 * import { ChatPolicy, Episode } from '@mtrl/env-http'
 * const policy = ChatPolicy.make({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'qwen2.5-7b-instruct' })
 * const episode = await Episode.play()(policy.agent)(env, 3)()
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (options: Options, environment: Readonly<Record<string, string | undefined>> = process.env): ChatPolicy => {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`
  const call = `POST ${url}`
  const key = environment[options.apiKeyEnv ?? defaultOptions.apiKeyEnv]
  const headers: Record<string, string> = key === undefined || key === '' ? {} : { authorization: `Bearer ${key}` }
  const gate = Semaphore.make(options.concurrency ?? defaultOptions.concurrency)
  let usage: Usage = { requests: 0, promptTokens: 0, completionTokens: 0 }

  const complete = (messages: ReadonlyArray<Chat.Message>): TE.TaskEither<ChatError, string> =>
    pipe(
      () =>
        gate.run(
          Http.send({
            method: 'POST',
            url,
            headers,
            body: {
              model: options.model,
              messages,
              temperature: options.temperature ?? defaultOptions.temperature,
              max_tokens: options.maxTokens ?? defaultOptions.maxTokens,
              n: 1,
              ...(options.stop === undefined ? {} : { stop: options.stop })
            },
            timeoutMs: options.timeoutMs ?? defaultOptions.timeoutMs,
            retries: options.retries ?? defaultOptions.retries,
            backoffMs: options.backoffMs ?? defaultOptions.backoffMs,
            retryStatuses: [408, 429, 500, 502, 503, 504],
            retryCodes: Http.connectionCodes,
            retryTimeouts: true
          })
        ),
      TE.mapLeft(chatErrorOf(call)),
      TE.chainEitherK((response) =>
        pipe(
          Decode.decode('chat completion', Completion)(response.json),
          E.mapLeft((error): ChatError => ({ _tag: 'InvalidResponse', call, reason: Decode.formatError(error) })),
          E.chain((completion) => {
            const content = completion.choices[0]?.message.content
            if (content === undefined || content === null)
              return E.left<ChatError, string>({ _tag: 'InvalidResponse', call, reason: 'no choice with text content' })
            usage = {
              requests: usage.requests + 1,
              promptTokens: usage.promptTokens + (completion.usage?.prompt_tokens ?? 0),
              completionTokens: usage.completionTokens + (completion.usage?.completion_tokens ?? 0)
            }
            return E.right(content)
          })
        )
      )
    )

  const agent: Agent = async (history) => {
    const reply = await complete(history.messages)()
    if (E.isLeft(reply)) throw new Error(message(reply.left))
    return reply.right
  }

  return { complete, agent, usage: () => usage }
}
