/**
 * The host KV cache of the incremental forward pass (`decode.ts`): a preallocated Float32Array
 * per layer that each slot writes in place at its own positions, and canon mixing's memory of
 * residual rows beside it.
 */
import { canonSpan, headDim, type ModelConfig } from '../ModelConfig.js'

/**
 * The KV cache of a session: per layer, keys and values [slots, kvHeads, capacity, headDim],
 * and each slot's length. Capacity grows by doubling up to `maxLen`.
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
}

export const makeCache = (config: ModelConfig, slots: number, maxLen: number): Cache => ({
  slots,
  maxLen,
  capacity: 0,
  k: Array.from({ length: config.layers }, () => new Float32Array(0)),
  v: Array.from({ length: config.layers }, () => new Float32Array(0)),
  lengths: new Int32Array(slots),
  last: new Int32Array(slots).fill(-1),
  canon: Array.from({ length: canonSpan(config) > 0 ? config.layers : 0 }, () => ({
    attn: new Float32Array(slots * maxLen * config.dModel),
    mlp: new Float32Array(slots * maxLen * config.dModel)
  }))
})

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
