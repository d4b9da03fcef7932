/**
 * Continuous batching over a KV-cached {@link Decoder}: every submitted sequence decodes in a
 * slot of one shared decoder, one forward call per step for all of them. A sequence that arrives
 * while others decode joins at the next step (its prompt prefilled in chunks beside their decode
 * rows); a finished one frees its slot at once. A prefix cache keeps finished sequences in their
 * slots: a prompt that extends one (the next turn of a conversation: prompt, completion, new
 * messages) re-encodes only its new tokens, and prompts that share a prefix with a sequence
 * still prefilling wait a step to copy it instead of computing it twice (n > 1, a group of
 * agents on one task). The scheduling of vLLM and SGLang, on mtrl's host-side decoder.
 *
 * Each sequence draws from its own random stream with its own sampling options, and a row's
 * logits never depend on the other rows of a step, so a greedy sequence decodes to the same
 * tokens whatever else is in the batch. A sequence with a grammar (constrained decoding) draws
 * from its logits masked to the tokens the grammar allows, its own mask at each step.
 *
 * @since 0.1.0
 */
import type { Rng } from '@mtrl/core'
import type * as Grammar from './Grammar.js'
import { Decoder, type Policy, type Sampling } from '@mtrl/policy'
import * as Batch from './internal/batch.js'
import * as Running from './internal/running.js'
import * as Slots from './internal/slots.js'
import * as Step from './internal/step.js'

/**
 * - `slots`: sequences decoded at once (more wait in a queue); default 32;
 * - `maxLen`: longest sequence (prompt + completion), at most the model's context;
 * - `prefillChunk`: prompt tokens prefilled per step over all sequences (default 512), so a
 *   long prompt does not stall the others' decoding;
 * - `prefixCache`: reuse cached prefixes (default true; false encodes every prompt whole, to
 *   measure what the cache saves).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly slots?: number
  readonly maxLen: number
  readonly prefillChunk?: number
  readonly prefixCache?: boolean
}

/**
 * One sampled token: its id, log-prob under the distribution sampled from (see
 * `Sampling.draw`) and, when asked for, the most likely tokens.
 *
 * @category models
 * @since 0.1.0
 */
export interface Token {
  readonly id: number
  readonly logprob: number
  readonly top: ReadonlyArray<Sampling.Candidate>
}

/**
 * A sequence to complete. `onToken` sees each token as it is sampled and returns `true` to end
 * the sequence there (a stop string); `signal` aborts it (a client gone).
 *
 * @category models
 * @since 0.1.0
 */
export interface Sequence {
  readonly prompt: Int32Array
  readonly maxTokens: number
  readonly sampling: Sampling.SampleOptions
  readonly stopTokens: ReadonlyArray<number>
  readonly rng: Rng.Rng
  /** How many most likely tokens to report per step (0: none). */
  readonly topLogprobs?: number
  readonly onToken?: (token: Token) => boolean
  readonly signal?: AbortSignal
  /**
   * Constrained decoding: each token is drawn from the logits with every token this matcher
   * does not allow masked out (log-probs and top candidates are those of the masked
   * distribution); the other sequences of the batch are unaffected. The caller owns it.
   */
  readonly grammar?: Grammar.Matcher
}

/**
 * Why a sequence ended: a stop token or `onToken` (`stop`), `maxTokens` (`length`), its signal
 * (`aborted`).
 *
 * @category models
 * @since 0.1.0
 */
export type Finish = 'stop' | 'length' | 'aborted'

/**
 * A completed sequence: the sampled tokens (the stop token included), their log-probs and top
 * candidates, why it ended, and how many prompt tokens came from the prefix cache.
 *
 * @category models
 * @since 0.1.0
 */
export interface Completion {
  readonly tokens: Int32Array
  readonly logprobs: Float32Array
  readonly top: ReadonlyArray<ReadonlyArray<Sampling.Candidate>>
  readonly finish: Finish
  readonly cachedTokens: number
  /** With a grammar: the mask each token was drawn under (see `Grammar.Matcher`), one per token. */
  readonly masks?: ReadonlyArray<Int32Array>
}

/**
 * Counters since the engine started.
 *
 * @category models
 * @since 0.1.0
 */
export interface Stats {
  readonly steps: number
  readonly running: number
  readonly waiting: number
  readonly completed: number
  readonly promptTokens: number
  /** Prompt tokens taken from the prefix cache instead of being encoded. */
  readonly cachedTokens: number
  readonly generatedTokens: number
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Engine {
  readonly slots: number
  readonly maxLen: number
  /** Completes the sequence; rejects only on a broken invariant (a bad token id, a prompt longer than `maxLen`). */
  readonly submit: (sequence: Sequence) => Promise<Completion>
  readonly stats: () => Stats
  /** Waits for every sequence submitted so far, then frees the decoder. */
  readonly close: () => Promise<void>
}

const nextTick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** Why `sequence` cannot be decoded within `maxLen` (an empty or too long prompt, no tokens to sample), or `undefined`. */
const refusal = (sequence: Sequence, maxLen: number): Error | undefined => {
  const n = sequence.prompt.length
  if (n === 0 || n + 1 > maxLen) return new Error(`Engine.submit: a prompt of ${n} tokens; it must hold 1 to ${maxLen - 1}`)
  if (!(sequence.maxTokens >= 1)) return new Error(`Engine.submit: maxTokens must be >= 1, got ${sequence.maxTokens}`)
  return undefined
}

/**
 * An engine decoding with `policy` (read, not owned: it may be trained between steps; the
 * decoder picks up new weights).
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { Engine } from '@mtrl/serving'
 * declare const policy: import('@mtrl/policy').Policy.Policy
 * const engine = Engine.make(policy, { maxLen: 512 })
 * const done = await engine.submit({ prompt: Int32Array.of(1, 2, 3), maxTokens: 16, sampling: { temperature: 0 }, stopTokens: [2], rng: Rng.make(0) })
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (policy: Policy.Policy, options: Options): Engine => {
  const decoder = Decoder.make(policy, { slots: options.slots ?? 32, maxLen: options.maxLen })
  const batch = Batch.make(decoder, Slots.make(decoder, options.prefixCache ?? true), options.prefillChunk ?? 512)
  let nextId = 0
  let loop: Promise<void> | undefined
  let closed = false

  const run = async (): Promise<void> => {
    while (batch.running.size > 0 || batch.waiting.length > 0) {
      try {
        await Batch.maskPending(batch)
        Step.step(batch)
      } catch (error) {
        // a broken invariant: fail what is in flight, keep serving the rest
        Batch.failInFlight(batch, error)
      }
      await nextTick()
    }
    loop = undefined
  }

  const submit = (sequence: Sequence): Promise<Completion> =>
    new Promise((resolve, reject) => {
      if (closed) return reject(new Error('Engine.submit: the engine is closed'))
      const invalid = refusal(sequence, decoder.maxLen)
      if (invalid !== undefined) return reject(invalid)
      batch.waiting.push(Running.make(nextId++, sequence, resolve, reject))
      loop ??= run()
    })

  return {
    slots: decoder.slots,
    maxLen: decoder.maxLen,
    submit,
    stats: () => ({ ...batch.counts, running: batch.running.size, waiting: batch.waiting.length }),
    close: async () => {
      closed = true
      while (loop !== undefined) await loop
      decoder.dispose()
    }
  }
}
