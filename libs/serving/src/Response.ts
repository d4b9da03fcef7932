/**
 * The response shapes of OpenAI's Chat Completions API that the server writes: the
 * `chat.completion` object, the `chat.completion.chunk` of a stream, usage, log-probs, tool
 * calls, and the error object. Extensions (vLLM's names): `prompt_token_ids` and each choice's
 * `token_ids`, when the request sets `return_token_ids`.
 *
 * @since 0.1.0
 */

/** @category models @since 0.1.0 */
export type FinishReason = 'stop' | 'length' | 'tool_calls'

/** @category models @since 0.1.0 */
export interface ToolCall {
  readonly id: string
  readonly type: 'function'
  readonly function: { readonly name: string; readonly arguments: string }
}

/** @category models @since 0.1.0 */
export interface TopLogprob {
  readonly token: string
  readonly logprob: number
  readonly bytes: ReadonlyArray<number>
}

/** @category models @since 0.1.0 */
export interface TokenLogprob extends TopLogprob {
  readonly top_logprobs: ReadonlyArray<TopLogprob>
}

/** `cached_tokens`: prompt tokens the prefix cache supplied. @category models @since 0.1.0 */
export interface Usage {
  readonly prompt_tokens: number
  readonly completion_tokens: number
  readonly total_tokens: number
  readonly prompt_tokens_details: { readonly cached_tokens: number }
}

/** @category models @since 0.1.0 */
export interface ChatCompletion {
  readonly id: string
  readonly object: 'chat.completion'
  readonly created: number
  readonly model: string
  readonly choices: ReadonlyArray<{
    readonly index: number
    readonly message: { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: ReadonlyArray<ToolCall> }
    readonly logprobs: { readonly content: ReadonlyArray<TokenLogprob> } | null
    readonly finish_reason: FinishReason
    readonly token_ids?: ReadonlyArray<number>
  }>
  readonly usage: Usage
  readonly prompt_token_ids?: ReadonlyArray<number>
}

/**
 * A piece of a streamed tool call: the first names the call (`id`, `type`, `function.name`, and
 * `arguments` ''), the next ones add to its `arguments` (as OpenAI and vLLM stream them).
 *
 * @category models
 * @since 0.2.0
 */
export type ToolCallDelta = { readonly index: number } & (ToolCall | { readonly function: { readonly arguments: string } })

/** @category models @since 0.1.0 */
export interface ChunkChoice {
  readonly index: number
  readonly delta: {
    readonly role?: 'assistant'
    readonly content?: string
    readonly tool_calls?: ReadonlyArray<ToolCallDelta>
  }
  readonly logprobs: { readonly content: ReadonlyArray<TokenLogprob> } | null
  readonly finish_reason: FinishReason | null
  readonly token_ids?: ReadonlyArray<number>
}

/** @category models @since 0.1.0 */
export interface ChatCompletionChunk {
  readonly id: string
  readonly object: 'chat.completion.chunk'
  readonly created: number
  readonly model: string
  readonly choices: ReadonlyArray<ChunkChoice>
  readonly usage?: Usage
  readonly prompt_token_ids?: ReadonlyArray<number>
}

/**
 * OpenAI's error body.
 *
 * @category models
 * @since 0.1.0
 */
export interface ErrorBody {
  readonly error: { readonly message: string; readonly type: string; readonly param: string | null; readonly code: string | null }
}

/**
 * An error body.
 *
 * @example
 * import { Response } from '@mtrl/serving'
 * Response.error('messages: expected an array', 'invalid_request_error', 'messages')
 *
 * @category constructors
 * @since 0.1.0
 */
export const error = (message: string, type: string, param: string | null = null, code: string | null = null): ErrorBody => ({
  error: { message, type, param, code }
})
