/**
 * The step-level KV-cached decoder under {@link Sampler}: `slots` independent sequences in a
 * preallocated host cache; `feed` runs any number of new tokens for any set of slots in one
 * forward call (prefill and decode rows mixed) and returns each fed slot's next-token logits.
 * A server that batches requests continuously (one `feed` per step, requests joining and
 * leaving between steps) and a prefix cache (`truncate`, `copy`) are built on it; `Sampler`
 * adds the draw loop of one `generate` call.
 *
 * The weights are read in one of two layouts ({@link Layout}): a folded copy (kept between
 * calls and rebuilt when any policy variable has been assigned since: an optimizer step
 * replaces a variable's dataId), or the trunk's own variables (no second copy of the model);
 * either way a decoder always decodes with the current weights. Per-row results do not depend on which other rows share a
 * call (every op between the weight products runs row by row on the host).
 *
 * @since 0.5.0
 */
import { defaultKernel } from './internal/attendKernel.js'
import { makeCurrentWeights, type CurrentWeights } from './internal/currentWeights.js'
import { forward } from './internal/decode.js'
import type { Layout as WeightsLayout } from './internal/decodeWeights.js'
import { copyPrefix, disposeCache, makeCache, type Cache } from './internal/kvCache.js'
import type { ModelConfig } from './ModelConfig.js'
import type { Policy } from './Policy.js'

/**
 * Tokens to append to one slot.
 *
 * @category models
 * @since 0.5.0
 */
export interface Feed {
  readonly slot: number
  readonly tokens: ArrayLike<number>
}

/**
 * A KV-cached decoder over `slots` sequences of at most `maxLen` tokens; `dispose` frees the
 * decode-layout weights and the cache.
 *
 * @category models
 * @since 0.5.0
 */
export interface Decoder {
  readonly slots: number
  readonly maxLen: number
  /** Number of tokens the slot holds. */
  readonly length: (slot: number) => number
  /** A copy of the token ids the slot holds, in order. */
  readonly tokens: (slot: number) => Int32Array
  /**
   * Appends each feed's tokens to its slot (one forward call for all of them) and returns the
   * next-token logits after each feed's last token (`[vocab]` each, in the order of `feeds`).
   * Feeds must name distinct slots and hold at least one token.
   */
  readonly feed: (feeds: ReadonlyArray<Feed>) => ReadonlyArray<Float32Array>
  /** Keeps the slot's first `length` tokens (at most its length): the cut is exact, as if only they had been fed. */
  readonly truncate: (slot: number, length: number) => void
  /** Whether `truncate(slot, length)` is possible (`length` within the slot's). */
  readonly canTruncate: (slot: number, length: number) => boolean
  /** Makes slot `to` hold slot `from`'s first `length` tokens (keys, values, canon memory and tokens copied: no forward pass). */
  readonly copy: (from: number, to: number, length: number) => void
  /** Empties the slot (`truncate(slot, 0)`). */
  readonly reset: (slot: number) => void
  /**
   * The version of the policy's weights this decoder decodes with: it grows whenever a variable
   * has been assigned since the last call (an optimizer step). Keys and values cached under an
   * older version are stale: a prefix cache must not reuse them.
   */
  readonly weightsVersion: () => number
  readonly dispose: () => void
}

/**
 * How a decoder reads the policy's weights. `copy`: a second copy of the model in decode layout
 * (each block one fused, transposed product, the norm weights and the attention scale folded
 * in): the fewest ops a step, and the layout for backends whose products copy a transposed
 * operand (wasm, cpu). `shared`: the trunk's own variables through products with transpose
 * flags (q, k, v as three products, LoRA as its two small products, the norms on the host): no
 * second copy, which at real sizes is as large as the model. Default: `shared` where the
 * backend's products take transposes as flags (tensorflow, webgpu, webgl) for models of 16M
 * parameters or more, else `copy`. Both decode as the full forward pass does (float32
 * rounding apart).
 *
 * @category models
 * @since 0.6.0
 */
export type Layout = WeightsLayout

/**
 * @category models
 * @since 0.5.0
 */
export interface Options {
  readonly slots: number
  /** Longest sequence per slot (at most the model's `maxLen`). */
  readonly maxLen: number
  /** How the weights are read (default: see {@link Layout}). */
  readonly weights?: Layout
}

const checkOptions = (config: ModelConfig, options: Options): void => {
  const S = options.slots
  const maxLen = options.maxLen
  if (!Number.isInteger(S) || S <= 0) throw new Error(`Decoder.make: slots must be a positive integer, got ${S}`)
  if (!Number.isInteger(maxLen) || maxLen <= 0 || maxLen > config.maxLen)
    throw new Error(`Decoder.make: maxLen must be in [1, ${config.maxLen}], got ${maxLen}`)
  if (options.weights !== undefined && options.weights !== 'copy' && options.weights !== 'shared')
    throw new Error(`Decoder.make: weights must be 'copy' or 'shared', got ${String(options.weights)}`)
}

/** What a decoder holds between calls: the KV cache and each slot's token ids. */
interface State {
  readonly config: ModelConfig
  readonly slots: number
  readonly maxLen: number
  cache: Cache
  /** Each slot's token ids; the cache's lengths say how many are held. */
  readonly held: Int32Array[]
  disposed: boolean
}

const checkSlot = (state: State, slot: number): void => {
  if (state.disposed) throw new Error('Decoder used after dispose')
  if (!Number.isInteger(slot) || slot < 0 || slot >= state.slots) throw new Error(`slot ${slot} out of range [0, ${state.slots})`)
}

const canTruncate = (state: State, slot: number, length: number): boolean => {
  checkSlot(state, slot)
  const n = state.cache.lengths[slot]!
  return Number.isInteger(length) && length >= 0 && length <= n
}

const checkTruncate = (state: State, slot: number, length: number, what: string): void => {
  if (!canTruncate(state, slot, length)) throw new Error(`${what}: cannot keep ${length} of slot ${slot}'s ${state.cache.lengths[slot]} tokens`)
}

/** Throws unless the feeds name distinct slots and each holds tokens of the vocabulary that fit in its slot. */
const checkFeeds = (state: State, feeds: ReadonlyArray<Feed>): void => {
  const { cache, maxLen } = state
  const V = state.config.vocab
  const seen = new Set<number>()
  for (const { slot, tokens } of feeds) {
    checkSlot(state, slot)
    if (seen.has(slot)) throw new Error(`feed: slot ${slot} given twice`)
    seen.add(slot)
    if (tokens.length === 0) throw new Error(`feed: no tokens for slot ${slot}`)
    if (cache.lengths[slot]! + tokens.length > maxLen)
      throw new Error(`feed: slot ${slot} would hold ${cache.lengths[slot]! + tokens.length} tokens, more than maxLen ${maxLen}`)
    for (let i = 0; i < tokens.length; i++)
      if (!(tokens[i]! >= 0 && tokens[i]! < V)) throw new Error(`feed: token id ${tokens[i]} outside the vocabulary [0, ${V})`)
  }
}

const feedSlots = (state: State, weights: CurrentWeights, feeds: ReadonlyArray<Feed>): ReadonlyArray<Float32Array> => {
  checkFeeds(state, feeds)
  if (feeds.length === 0) return []
  const { cache, held } = state
  const V = state.config.vocab
  for (const { slot, tokens } of feeds) held[slot]!.set(tokens, cache.lengths[slot]!)
  const logits = forward(weights.prepared(), cache, feeds)
  return feeds.map((_, r) => logits.slice(r * V, (r + 1) * V))
}

const truncateSlot = (state: State, slot: number, length: number): void => {
  checkTruncate(state, slot, length, 'truncate')
  state.cache.lengths[slot] = length
  state.cache.last[slot] = length === 0 ? -1 : state.held[slot]![length - 1]!
}

const copySlot = (state: State, from: number, to: number, length: number): void => {
  checkSlot(state, to)
  checkTruncate(state, from, length, 'copy')
  if (from === to) return truncateSlot(state, to, length)
  const { cache, held } = state
  copyPrefix(state.config, cache, from, to, length)
  cache.lengths[to] = length
  cache.last[to] = length === 0 ? -1 : held[from]![length - 1]!
  held[to]!.set(held[from]!.subarray(0, length))
}

/**
 * A decoder of `policy` (which it reads, never owns).
 *
 * @example
 * import { Decoder, ModelConfig, Policy } from '@mtrl/policy'
 * const policy = Policy.make(ModelConfig.make({ vocab: 64, dModel: 32, layers: 1, heads: 2 }), 0)
 * const decoder = Decoder.make(policy, { slots: 2, maxLen: 64 })
 * const [a, b] = decoder.feed([{ slot: 0, tokens: [1, 2, 3] }, { slot: 1, tokens: [4] }])
 * decoder.dispose()
 *
 * @category constructors
 * @since 0.5.0
 */
export const make = (policy: Policy, options: Options): Decoder => {
  const config = policy.config
  checkOptions(config, options)
  const { slots, maxLen } = options
  const state: State = {
    config,
    slots,
    maxLen,
    cache: makeCache(config, slots, maxLen, defaultKernel()),
    held: Array.from({ length: slots }, () => new Int32Array(maxLen)),
    disposed: false
  }
  const weights = makeCurrentWeights(policy, options.weights)
  return {
    slots,
    maxLen,
    length: (slot) => {
      checkSlot(state, slot)
      return state.cache.lengths[slot]!
    },
    tokens: (slot) => {
      checkSlot(state, slot)
      return state.held[slot]!.slice(0, state.cache.lengths[slot]!)
    },
    feed: (feeds) => feedSlots(state, weights, feeds),
    truncate: (slot, length) => truncateSlot(state, slot, length),
    canTruncate: (slot, length) => canTruncate(state, slot, length),
    copy: (from, to, length) => copySlot(state, from, to, length),
    reset: (slot) => truncateSlot(state, slot, 0),
    weightsVersion: () => {
      if (state.disposed) throw new Error('Decoder used after dispose')
      return weights.version()
    },
    dispose: () => {
      weights.dispose()
      disposeCache(state.cache)
      state.cache = makeCache(config, 0, 0, undefined) // drops the cache's buffers
      state.held.length = 0
      state.disposed = true
    }
  }
}
