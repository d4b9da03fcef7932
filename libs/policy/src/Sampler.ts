/**
 * Batched multi-turn sampling with a per-layer KV cache kept per slot across turns (decision
 * 0002): `append` pre-fills observation tokens, `generate` samples an action (its tokens,
 * including the final stop token, are appended to the cache), `reset` empties a slot for a new
 * episode. Nothing is ever re-encoded.
 *
 * Slots share the cache's columns; a slot that appends fewer tokens than another in the same
 * call (or stops generating early) leaves masked holes, which are compacted away when they
 * grow. Positions are per slot, so holes never change the numbers.
 *
 * @since 0.1.0
 */
import type { Rng } from '@mtrl/core'
import * as tf from '@tensorflow/tfjs'
import { forward, prepare, type Prepared } from './internal/decode.js'
import { draw } from './internal/sample.js'
import { weightOf, type Policy } from './Policy.js'

/**
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
  readonly rng: Rng.Rng
}

/**
 * One slot's sampled tokens and their log-probs under the sampling distribution actually used
 * (temperature, top-k, top-p applied; greedy reports the model's log-prob at temperature 1).
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
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly slots: number
  /** Longest sequence per slot (at most the model's `maxLen`). */
  readonly maxLen: number
}

const MASKED = -1e9

/**
 * A sampling session over `slots` independent sequences. Weights are read at each call, so a
 * session stays valid across optimizer steps. The session owns its cache: call `dispose`.
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { ModelConfig, Policy, Sampler } from '@mtrl/policy'
 * const policy = Policy.make(ModelConfig.make({ vocab: 64, dModel: 32, layers: 1, heads: 2 }), 0)
 * const session = Sampler.make(policy, { slots: 2, maxLen: 64 })
 * session.append([0, 1], [Int32Array.of(1, 2, 3), Int32Array.of(4)])
 * const [a, b] = session.generate([0, 1], { maxNewTokens: 8, temperature: 1, stopTokens: [5], rng: Rng.Rng.make(0) })
 * session.dispose()
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (policy: Policy, options: Options): SamplerSession => {
  const config = policy.config
  const S = options.slots
  const maxLen = options.maxLen
  if (!Number.isInteger(S) || S <= 0) throw new Error(`Sampler.make: slots must be a positive integer, got ${S}`)
  if (maxLen > config.maxLen) throw new Error(`Sampler.make: maxLen ${maxLen} exceeds the model's maxLen ${config.maxLen}`)
  const V = config.vocab
  let kCache: tf.Tensor4D[] | undefined
  let vCache: tf.Tensor4D[] | undefined
  let columns = 0
  const valid: number[][] = Array.from({ length: S }, () => [])
  const lengths = new Array<number>(S).fill(0)
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

  const setCache = (k: tf.Tensor4D[] | undefined, vv: tf.Tensor4D[] | undefined): void => {
    kCache?.forEach((t) => t.dispose())
    vCache?.forEach((t) => t.dispose())
    kCache = k
    vCache = vv
  }

  /** Drops hole columns: each slot's real columns moved to the front, in order. */
  const compact = (): void => {
    const width = Math.max(...lengths)
    if (kCache === undefined || vCache === undefined || width === columns) return
    if (width === 0) {
      setCache(undefined, undefined)
      columns = 0
      valid.forEach((row) => (row.length = 0))
      return
    }
    const index = new Int32Array(S * width)
    for (let s = 0; s < S; s++) {
      let c = 0
      valid[s]!.forEach((ok, col) => {
        if (ok === 1) index[s * width + c++] = col
      })
    }
    const next = tf.tidy(() => {
      const idx = tf.tensor2d(index, [S, width], 'int32')
      return {
        k: kCache!.map((t) => tf.gather(t, idx, 2, 1) as tf.Tensor4D),
        v: vCache!.map((t) => tf.gather(t, idx, 2, 1) as tf.Tensor4D)
      }
    })
    setCache(next.k, next.v)
    columns = width
    for (let s = 0; s < S; s++) valid[s] = Array.from({ length: width }, (_, c) => (c < lengths[s]! ? 1 : 0))
  }

  const maybeCompact = (incoming: number): void => {
    const used = Math.max(...lengths)
    if (columns + incoming > 2 * maxLen || columns > 2 * used + 32) compact()
  }

  /**
   * Runs one chunk for `rows` (slot ids) with per-row tokens (`counts[r]` real of `width`),
   * appends the columns to the shared cache and returns the rows' next-token logits.
   */
  const step = (prep: Prepared, rows: ReadonlyArray<number>, width: number, tokens: Int32Array, counts: ReadonlyArray<number>): Float32Array => {
    const R = rows.length
    const all = R === S && rows.every((s, i) => s === i)
    const L0 = columns
    const positions = new Int32Array(R * width)
    const mask = new Float32Array(R * width * (L0 + width)).fill(MASKED)
    const last = new Int32Array(R)
    rows.forEach((s, r) => {
      const n = counts[r]!
      last[r] = Math.max(0, n - 1)
      const row = valid[s]!
      for (let i = 0; i < width; i++) {
        positions[r * width + i] = Math.min(lengths[s]! + i, config.maxLen - 1)
        const base = (r * width + i) * (L0 + width)
        for (let c = 0; c < L0; c++) if (row[c] === 1) mask[base + c] = 0
        for (let j = 0; j <= i && j < n; j++) mask[base + L0 + j] = 0
      }
    })
    const subK = all || kCache === undefined ? kCache : tf.tidy(() => kCache!.map((t) => tf.gather(t, rows as number[], 0) as tf.Tensor4D))
    const subV = all || vCache === undefined ? vCache : tf.tidy(() => vCache!.map((t) => tf.gather(t, rows as number[], 0) as tf.Tensor4D))
    const result = forward(prep, subK, subV, { rows: R, width, tokens, positions, mask, last })
    if (all) setCache(result.k, result.v)
    else {
      const rowOf = new Int32Array(S).fill(R)
      rows.forEach((s, r) => (rowOf[s] = r))
      const merged = tf.tidy(() => {
        const map = tf.tensor1d(rowOf, 'int32')
        const widen = (full: tf.Tensor4D | undefined, sub: tf.Tensor4D, axis: 2 | 3): tf.Tensor4D => {
          const begin = [0, 0, 0, 0]
          begin[axis] = L0
          const fresh = tf.slice(sub, begin, [-1, -1, -1, -1])
          const padded = tf.gather(tf.concat([fresh, tf.zerosLike(tf.slice(fresh, [0, 0, 0, 0], [1, -1, -1, -1]))], 0), map)
          return (full === undefined ? padded : tf.concat([full, padded], axis)) as tf.Tensor4D
        }
        return { k: result.k.map((t, i) => widen(kCache?.[i], t, 2)), v: result.v.map((t, i) => widen(vCache?.[i], t, 2)) }
      })
      result.k.forEach((t) => t.dispose())
      result.v.forEach((t) => t.dispose())
      subK?.forEach((t) => t.dispose())
      subV?.forEach((t) => t.dispose())
      setCache(merged.k, merged.v)
    }
    columns = L0 + width
    const inCall = new Map<number, number>(rows.map((s, r) => [s, r]))
    for (let s = 0; s < S; s++) {
      const r = inCall.get(s)
      const n = r === undefined ? 0 : counts[r]!
      for (let i = 0; i < width; i++) valid[s]!.push(i < n ? 1 : 0)
      lengths[s] = lengths[s]! + n
    }
    return result.logits
  }

  const append = (slots: ReadonlyArray<number>, tokens: ReadonlyArray<Int32Array>): void => {
    checkSlots(slots)
    if (slots.length !== tokens.length) throw new Error(`append: ${slots.length} slots but ${tokens.length} token arrays`)
    const rows = slots.filter((_, i) => tokens[i]!.length > 0)
    const parts = tokens.filter((t) => t.length > 0)
    if (rows.length === 0) return
    rows.forEach((s, r) => {
      if (lengths[s]! + parts[r]!.length > maxLen) throw new Error(`append: slot ${s} would hold ${lengths[s]! + parts[r]!.length} tokens, more than maxLen ${maxLen}`)
      for (const id of parts[r]!) if (!(id >= 0 && id < V)) throw new Error(`append: token id ${id} outside the vocabulary [0, ${V})`)
    })
    const width = Math.max(...parts.map((t) => t.length))
    maybeCompact(width)
    const flat = new Int32Array(rows.length * width)
    parts.forEach((t, r) => flat.set(t, r * width))
    const prep = prepare(config, weightOf(policy))
    try {
      const logits = step(prep, rows, width, flat, parts.map((t) => t.length))
      rows.forEach((s, r) => (pending[s] = logits.slice(r * V, (r + 1) * V)))
    } finally {
      prep.dispose()
    }
  }

  const generate = (slots: ReadonlyArray<number>, opts: GenerateOptions): ReadonlyArray<Generation> => {
    checkSlots(slots)
    for (const s of slots) {
      if (pending[s] === undefined) throw new Error(`generate: slot ${s} is empty; append a prompt first`)
      if (lengths[s]! + opts.maxNewTokens > maxLen)
        throw new Error(`generate: slot ${s} holds ${lengths[s]} tokens; ${opts.maxNewTokens} more would exceed maxLen ${maxLen}`)
    }
    const stop = new Set(opts.stopTokens)
    const outTokens = slots.map(() => [] as number[])
    const outLogprobs = slots.map(() => [] as number[])
    const done = slots.map(() => opts.maxNewTokens <= 0)
    const stopped = slots.map(() => false)
    if (slots.length === 0 || opts.maxNewTokens <= 0) return slots.map(() => ({ tokens: new Int32Array(0), logprobs: new Float32Array(0), stopped: false }))
    maybeCompact(opts.maxNewTokens)
    const prep = prepare(config, weightOf(policy))
    try {
      const sampling = { temperature: opts.temperature, topK: opts.topK, topP: opts.topP }
      for (let t = 0; t < opts.maxNewTokens && done.some((d) => !d); t++) {
        const tokens = new Int32Array(slots.length)
        const counts = slots.map((s, r) => {
          if (done[r]) return 0
          const logits = pending[s]!
          const { token, logprob } = draw(logits, 0, V, sampling, opts.rng)
          tokens[r] = token
          outTokens[r]!.push(token)
          outLogprobs[r]!.push(logprob)
          if (stop.has(token)) stopped[r] = done[r] = true
          else if (outTokens[r]!.length >= opts.maxNewTokens) done[r] = true
          return 1
        })
        const logits = step(prep, slots, 1, tokens, counts)
        slots.forEach((s, r) => {
          if (counts[r] === 1) pending[s] = logits.slice(r * V, (r + 1) * V)
        })
      }
    } finally {
      prep.dispose()
    }
    return slots.map((_, r) => ({ tokens: Int32Array.from(outTokens[r]!), logprobs: Float32Array.from(outLogprobs[r]!), stopped: stopped[r]! }))
  }

  const reset = (slot: number): void => {
    checkSlots([slot])
    lengths[slot] = 0
    pending[slot] = undefined
    valid[slot]!.fill(0)
    if (lengths.every((n) => n === 0)) {
      setCache(undefined, undefined)
      columns = 0
      valid.forEach((row) => (row.length = 0))
    }
  }

  return {
    slots: S,
    length: (slot) => {
      checkSlots([slot])
      return lengths[slot]!
    },
    append,
    generate,
    reset,
    dispose: () => {
      setCache(undefined, undefined)
      disposed = true
    }
  }
}
