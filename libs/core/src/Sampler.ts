/**
 * The sampler contract of decision 0002: a KV-cached sampler over `slots` independent
 * sequences, which rollouts drive turn by turn (`append` an observation, `generate` an action).
 * Defined here, once; `@mtrl/policy`'s `Sampler.make` implements it, and any other sampler (a
 * remote one included) can drive rollouts.
 *
 * @since 0.1.0
 */
import type { Rng } from './Rng.js'

/**
 * Sampling options of one `generate` call.
 *
 * @category models
 * @since 0.1.0
 */
export interface GenerateOptions {
  readonly maxNewTokens: number
  /** 0 is greedy. */
  readonly temperature: number
  readonly topK?: number
  readonly topP?: number
  readonly stopTokens: ReadonlyArray<number>
  /**
   * One stream for every draw (slots draw in turn), or one per entry of `slots`: then a slot's
   * samples do not depend on which other slots share the call.
   */
  readonly rng: Rng | ReadonlyArray<Rng>
}

/**
 * One slot's sampled tokens (the stop token included when `stopped`) and their log-probs under
 * the sampling distribution actually used (temperature, top-k, top-p applied; greedy reports the
 * model's log-prob at temperature 1).
 *
 * @category models
 * @since 0.1.0
 */
export interface Generation {
  readonly tokens: Int32Array
  readonly logprobs: Float32Array
  /** True when the last token is a stop token. */
  readonly stopped: boolean
}

/**
 * A KV-cached sampler over `slots` independent sequences: `append` pre-fills tokens, `generate`
 * samples a reply for each listed slot (its tokens are appended to the slot), `reset` empties a
 * slot. `length(slot)` is the number of tokens a slot holds.
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
