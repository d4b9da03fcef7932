/**
 * What a rollout needs from a policy: a multi-turn sampler with a KV cache per episode slot,
 * the chat template that turns text into token pieces, and the tokenizer that turns sampled
 * tokens back into text. These are the shapes of decision 0002 (the policy API); any
 * `@mtrl/policy` sampler session, template and tokenizer fit them.
 *
 * @since 0.1.0
 */
import type { Rng } from '@mtrl/core'

/**
 * Text <-> tokens (decision 0002). Only `decode` and `special` are used by rollouts.
 *
 * @category models
 * @since 0.1.0
 */
export interface Tokenizer {
  readonly vocabSize: number
  readonly encode: (text: string) => Int32Array
  readonly decode: (ids: ArrayLike<number>) => string
  readonly special: {
    readonly pad: number
    readonly bos: number
    readonly eos: number
    readonly system: number
    readonly user: number
    readonly assistant: number
    readonly endOfTurn: number
  }
}

/**
 * Text -> token pieces of a conversation; only ever appended to (decision 0002).
 *
 * @category models
 * @since 0.1.0
 */
export interface ChatTemplate {
  /** System + first user message; ends with the assistant header. */
  readonly prompt: (system: string, firstUser: string) => Int32Array
  /** A user turn plus the next assistant header. */
  readonly observation: (text: string) => Int32Array
  /** Tokens that end an action: `[endOfTurn]` (+ eos). */
  readonly stopTokens: ReadonlyArray<number>
}

/**
 * Sampling options of one `generate` call.
 *
 * @category models
 * @since 0.1.0
 */
export interface GenerateOptions {
  readonly maxNewTokens: number
  readonly temperature: number
  readonly topK?: number
  readonly topP?: number
  readonly stopTokens: ReadonlyArray<number>
  /** One stream for every draw, or one per entry of the call's slots. */
  readonly rng: Rng.Rng | ReadonlyArray<Rng.Rng>
}

/**
 * One sampled reply: its tokens (the stop token included when `stopped`) and the sampler's
 * log-probability of each.
 *
 * @category models
 * @since 0.1.0
 */
export interface Generation {
  readonly tokens: Int32Array
  readonly logprobs: Float32Array
  readonly stopped: boolean
}

/**
 * A KV-cached sampler over `slots` independent sequences (decision 0002).
 *
 * @category models
 * @since 0.1.0
 */
export interface SamplerSession {
  readonly slots: number
  readonly length: (slot: number) => number
  readonly append: (slots: ReadonlyArray<number>, tokens: ReadonlyArray<Int32Array>) => void
  readonly generate: (slots: ReadonlyArray<number>, options: GenerateOptions) => ReadonlyArray<Generation>
  readonly reset: (slot: number) => void
  readonly dispose: () => void
}

/**
 * Everything a rollout uses of the policy. `contextLength` is the session's `maxLen`: no slot
 * ever holds more tokens.
 *
 * @category models
 * @since 0.1.0
 */
export interface Generator {
  readonly session: SamplerSession
  readonly template: ChatTemplate
  readonly tokenizer: Tokenizer
  readonly contextLength: number
}
