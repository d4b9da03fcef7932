/**
 * What a rollout needs from a policy: a multi-turn sampler with a KV cache per episode slot,
 * the chat template that turns text into token pieces, and the tokenizer that turns sampled
 * tokens back into text. The three contracts are `@mtrl/core`'s (decision 0002); any
 * `@mtrl/policy` sampler session, template and tokenizer fit them, and so does any other.
 *
 * @since 0.1.0
 */
import type { Sampler, Tokenizer } from '@mtrl/core'

/**
 * Everything a rollout uses of the policy. `contextLength` is the session's `maxLen`: no slot
 * ever holds more tokens.
 *
 * @category models
 * @since 0.1.0
 */
export interface Generator {
  readonly session: Sampler.SamplerSession
  readonly template: Tokenizer.ChatTemplate
  readonly tokenizer: Tokenizer.Tokenizer
  readonly contextLength: number
}
