/**
 * The host KV cache of the incremental forward pass (`decode.ts`): a preallocated Float32Array
 * per layer that each slot writes in place at its own positions, and canon mixing's memory of
 * residual rows beside it. Where the WebAssembly kernel runs, the keys and values live in the
 * cache's own kernel memory (`kvArena.ts`) at full length from the start; elsewhere in plain
 * arrays that grow by doubling.
 */
import { canonSpan, headDim, type ModelConfig } from '../ModelConfig.js'
import type { AttendKernel } from './attendKernel.js'
import { makeArena, type KvArena } from './kvArena.js'

/**
 * The KV cache of a session: per layer, keys and values [slots, kvHeads, capacity, headDim],
 * and each slot's length. Capacity grows by doubling up to `maxLen` (it is `maxLen` from the
 * start with an arena).
 */
export interface Cache {
  readonly slots: number
  readonly maxLen: number
  capacity: number
  readonly k: Float32Array[]
  readonly v: Float32Array[]
  readonly lengths: Int32Array
  /** Each slot's last token (-1 when empty): the previous token of the next one appended. */
  readonly last: Int32Array
  /**
   * Canon mixing's memory: per layer, the residual rows that entered its attention and its MLP
   * block at each of a slot's positions ([slots, maxLen, dModel]): every position, not only the
   * last `canonSpan`, so that a slot can be cut back to any prefix (a prefix cache) exactly.
   */
  readonly canon: ReadonlyArray<{ readonly attn: Float32Array; readonly mlp: Float32Array }>
  /** The kernel memory holding `k` and `v` (undefined: plain arrays and the JavaScript kernel). */
  readonly arena: KvArena | undefined
}

/** What every cache starts with: no positions held, canon memory zeroed. */
const emptyParts = (config: ModelConfig, slots: number, maxLen: number): Omit<Cache, 'capacity' | 'k' | 'v' | 'arena'> => ({
  slots,
  maxLen,
  lengths: new Int32Array(slots),
  last: new Int32Array(slots).fill(-1),
  canon: Array.from({ length: canonSpan(config) > 0 ? config.layers : 0 }, () => ({
    attn: new Float32Array(slots * maxLen * config.dModel),
    mlp: new Float32Array(slots * maxLen * config.dModel)
  }))
})

/**
 * A cache for `slots` sequences of at most `maxLen` positions, in an arena of `kernel` when it
 * applies (`kernel` undefined, or an arena refused: plain arrays and the JavaScript kernel).
 * The caller disposes it with {@link disposeCache}.
 */
export const makeCache = (config: ModelConfig, slots: number, maxLen: number, kernel: AttendKernel | undefined): Cache => {
  const shape = { layers: config.layers, heads: config.heads, kvHeads: config.kvHeads, headDim: headDim(config), slots, maxLen }
  const arena = kernel === undefined ? undefined : makeArena(kernel, shape)
  const empty = (): Float32Array[] => Array.from({ length: config.layers }, () => new Float32Array(0))
  return {
    ...emptyParts(config, slots, maxLen),
    capacity: arena === undefined ? 0 : maxLen,
    k: arena === undefined ? empty() : [...arena.k],
    v: arena === undefined ? empty() : [...arena.v],
    arena
  }
}

/** Frees the cache's kernel memory, if any; the cache holds no keys or values afterwards. */
export const disposeCache = (cache: Cache): void => {
  cache.arena?.dispose()
  for (const store of [cache.k, cache.v]) store.fill(new Float32Array(0))
  cache.capacity = 0
}

/** Grows the cache's capacity to hold `needed` positions per slot. */
export const reserve = (config: ModelConfig, cache: Cache, needed: number): void => {
  if (needed <= cache.capacity) return
  if (needed > cache.maxLen) throw new Error(`KV cache: ${needed} positions exceed maxLen ${cache.maxLen}`)
  let capacity = Math.max(16, cache.capacity)
  while (capacity < needed) capacity *= 2
  capacity = Math.min(capacity, cache.maxLen)
  const hd = headDim(config)
  const blocks = cache.slots * config.kvHeads
  for (const store of [cache.k, cache.v])
    store.forEach((old, l) => {
      const next = new Float32Array(blocks * capacity * hd)
      for (let b = 0; b < blocks; b++) next.set(old.subarray(b * cache.capacity * hd, (b * cache.capacity + cache.capacity) * hd), b * capacity * hd)
      store[l] = next
    })
  cache.capacity = capacity
}

/**
 * Copies slot `from`'s keys, values and canon memory at its first `length` positions over slot
 * `to`'s (`from` and `to` distinct); the slots' lengths are the caller's.
 */
export const copyPrefix = (config: ModelConfig, cache: Cache, from: number, to: number, length: number): void => {
  const hd = headDim(config)
  const cap = cache.capacity
  for (const store of [cache.k, cache.v])
    for (const layer of store)
      for (let h = 0; h < config.kvHeads; h++) {
        const src = (from * config.kvHeads + h) * cap * hd
        layer.copyWithin((to * config.kvHeads + h) * cap * hd, src, src + length * hd)
      }
  const D = config.dModel
  const maxLen = cache.maxLen
  for (const memory of cache.canon)
    for (const site of [memory.attn, memory.mlp]) site.copyWithin(to * maxLen * D, from * maxLen * D, (from * maxLen + length) * D)
}
