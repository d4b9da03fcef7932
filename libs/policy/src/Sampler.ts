/**
 * Batched multi-turn sampling with a per-layer KV cache kept per slot across turns (decision
 * 0002), on a {@link Decoder}: `append` pre-fills observation tokens, `generate` samples an action (its tokens,
 * including the final stop token, are appended to the cache), `reset` empties a slot for a new
 * episode. Nothing is ever re-encoded. Each slot has its own positions in a preallocated
 * cache, so slots of any lengths share a call without padding.
 *
 * Sampling draws come from core's Rng on the host, from next-token logits read in bulk once
 * per step: deterministic for a seed on a given backend.
 *
 * @since 0.1.0
 */
import type { Rng, Sampler as Contracts } from '@mtrl/core'
import * as Decoder from './Decoder.js'
import { draw } from './internal/sample.js'
import type { Policy } from './Policy.js'

/** Sampling options of one `generate` call (core's `Sampler.GenerateOptions`). @category models @since 0.1.0 */
export type GenerateOptions = Contracts.GenerateOptions
/** One slot's sampled tokens and their log-probs (core's `Sampler.Generation`). @category models @since 0.1.0 */
export type Generation = Contracts.Generation
/** The session contract (core's `Sampler.SamplerSession`). @category models @since 0.1.0 */
export type SamplerSession = Contracts.SamplerSession

const isStreams = (rng: Rng.Rng | ReadonlyArray<Rng.Rng>): rng is ReadonlyArray<Rng.Rng> => Array.isArray(rng)

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly slots: number
  /** Longest sequence per slot (at most the model's `maxLen`). */
  readonly maxLen: number
  /** How the decoder reads the weights (see `Decoder.Layout`; default by backend and size). */
  readonly weights?: Decoder.Layout
}

/**
 * A sampling session over `slots` independent sequences, on a {@link Decoder.make} of the
 * policy (weights in decode layout, rebuilt after optimizer steps; the KV cache in host memory).
 * `dispose` releases both.
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { ModelConfig, Policy, Sampler } from '@mtrl/policy'
 * const policy = Policy.make(ModelConfig.make({ vocab: 64, dModel: 32, layers: 1, heads: 2 }), 0)
 * const session = Sampler.make(policy, { slots: 2, maxLen: 64 })
 * session.append([0, 1], [Int32Array.of(1, 2, 3), Int32Array.of(4)])
 * const [a, b] = session.generate([0, 1], { maxNewTokens: 8, temperature: 1, stopTokens: [5], rng: Rng.make(0) })
 * session.dispose()
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (policy: Policy, options: Options): SamplerSession => {
  const decoder = Decoder.make(policy, options)
  const S = decoder.slots
  const V = policy.config.vocab
  const pending: Array<Float32Array | undefined> = new Array(S).fill(undefined)
  let disposed = false

  const checkSlots = (slots: ReadonlyArray<number>): void => {
    if (disposed) throw new Error('SamplerSession used after dispose')
    const seen = new Set<number>()
    for (const s of slots) {
      if (!Number.isInteger(s) || s < 0 || s >= S) throw new Error(`slot ${s} out of range [0, ${S})`)
      if (seen.has(s)) throw new Error(`slot ${s} given twice`)
      seen.add(s)
    }
  }

  /** Feeds the items to the decoder; their logits become the slots' next-token distributions. */
  const feed = (items: ReadonlyArray<Decoder.Feed>): void => {
    const logits = decoder.feed(items)
    items.forEach(({ slot }, i) => (pending[slot] = logits[i]))
  }

  const append = (slots: ReadonlyArray<number>, tokens: ReadonlyArray<Int32Array>): void => {
    checkSlots(slots)
    if (slots.length !== tokens.length) throw new Error(`append: ${slots.length} slots but ${tokens.length} token arrays`)
    const items = slots.map((slot, i) => ({ slot, tokens: tokens[i]! })).filter((item) => item.tokens.length > 0)
    for (const { slot, tokens: t } of items) {
      if (decoder.length(slot) + t.length > decoder.maxLen)
        throw new Error(`append: slot ${slot} would hold ${decoder.length(slot) + t.length} tokens, more than maxLen ${decoder.maxLen}`)
      for (const id of t) if (!(id >= 0 && id < V)) throw new Error(`append: token id ${id} outside the vocabulary [0, ${V})`)
    }
    if (items.length > 0) feed(items)
  }

  const generate = (slots: ReadonlyArray<number>, opts: GenerateOptions): ReadonlyArray<Generation> => {
    checkSlots(slots)
    for (const s of slots) {
      if (pending[s] === undefined) throw new Error(`generate: slot ${s} is empty; append a prompt first`)
      if (decoder.length(s) + opts.maxNewTokens > decoder.maxLen)
        throw new Error(`generate: slot ${s} holds ${decoder.length(s)} tokens; ${opts.maxNewTokens} more would exceed maxLen ${decoder.maxLen}`)
    }
    const stop = new Set(opts.stopTokens)
    const rngs = opts.rng
    if (isStreams(rngs) && rngs.length !== slots.length) throw new Error(`generate: ${rngs.length} random streams for ${slots.length} slots`)
    const rngOf = (r: number): Rng.Rng => (isStreams(rngs) ? rngs[r]! : rngs)
    const outTokens = slots.map(() => [] as number[])
    const outLogprobs = slots.map(() => [] as number[])
    const stopped = slots.map(() => false)
    const sampling = { temperature: opts.temperature, topK: opts.topK, topP: opts.topP }
    let active = opts.maxNewTokens > 0 ? slots.map((_, r) => r) : []
    while (active.length > 0) {
      const items = active.map((r) => {
        const slot = slots[r]!
        const { token, logprob } = draw(pending[slot]!, 0, V, sampling, rngOf(r))
        outTokens[r]!.push(token)
        outLogprobs[r]!.push(logprob)
        if (stop.has(token)) stopped[r] = true
        return { slot, tokens: [token] }
      })
      // the sampled tokens enter the cache (their logits are the next step's distribution)
      feed(items)
      active = active.filter((r) => !stopped[r] && outTokens[r]!.length < opts.maxNewTokens)
    }
    return slots.map((_, r) => ({ tokens: Int32Array.from(outTokens[r]!), logprobs: Float32Array.from(outLogprobs[r]!), stopped: stopped[r]! }))
  }

  const reset = (slot: number): void => {
    checkSlots([slot])
    decoder.reset(slot)
    pending[slot] = undefined
  }

  return {
    slots: S,
    length: (slot) => {
      checkSlots([slot])
      return decoder.length(slot)
    },
    append,
    generate,
    reset,
    dispose: () => {
      decoder.dispose()
      pending.fill(undefined)
      disposed = true
    }
  }
}
