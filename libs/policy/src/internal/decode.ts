/**
 * The incremental forward pass for sampling (never differentiated), written for the per-op
 * cost of TensorFlow.js: a decode step on a small batch is dominated by op dispatch (tens of
 * microseconds per op on wasm), not arithmetic. So only the weight products run as tensor ops
 * (one fused product per block: q|k|v, o, gate|up, down, head), on weights prepared once per
 * call with the norm weights and the attention scale folded in. Everything between them
 * (norms, RoPE, attention over the cache, SwiGLU)
 * runs on Float32Arrays in JavaScript, and the KV cache is a preallocated Float32Array per
 * layer written in place at each slot's own position: no concatenation, no holes. Canon mixing
 * (`ModelConfig.canonSpan`) keeps each slot's last few residual rows per layer beside the cache.
 */
import * as tf from '@tensorflow/tfjs'
import { canonSpan, headDim, type ModelConfig } from '../ModelConfig.js'
import { activate, attend, normalize, placeQkv } from './hostKernels.js'
import { ropeTable } from './ops.js'
import { canonWeights, headWeight, layerPrefix, prevTokenWeight, type WeightOf } from './transformer.js'

/**
 * A norm whose weight (and bias) are folded into the product that follows it: the kernel
 * computes only the normalisation itself.
 */
interface Projection {
  /** [in, out], norm weight folded into its rows. */
  readonly weightT: tf.Tensor2D
  /** [out]: the projection bias plus the norm bias pushed through the weight. */
  readonly bias: tf.Tensor1D | undefined
}

interface LayerWeights {
  /** input norm + [q | k | v] (q scaled by 1/sqrt(hd)). */
  readonly qkv: Projection
  readonly oT: tf.Tensor2D
  /** post-attention norm + [gate | up] (or up alone for GELU). */
  readonly up: Projection
  readonly downT: tf.Tensor2D
}

export interface Prepared {
  readonly config: ModelConfig
  /** The embedding tables ([vocab, d], [maxLen, d]); rows are gathered on the backend. */
  readonly embed: tf.Tensor2D
  readonly positions: tf.Tensor2D | undefined
  /** The previous-token table (`ModelConfig.prevTokenEmbedding`), else undefined. */
  readonly previous: tf.Tensor2D | undefined
  readonly layers: ReadonlyArray<LayerWeights>
  /** Host copies of each layer's q|k|v and gate|up biases (undefined without biases). */
  readonly biases: ReadonlyArray<Float32Array | undefined>
  readonly upBiases: ReadonlyArray<Float32Array | undefined>
  /** Host copies of each layer's canon weights ([span * dModel] before attention, before the MLP), empty when off. */
  readonly canon: ReadonlyArray<{ readonly attn: Float32Array; readonly mlp: Float32Array }>
  readonly head: Projection
  readonly headBias: Float32Array | undefined
  readonly dispose: () => void
}

/** Snapshot of the weights in decode layout. Holds tensors until `dispose`. */
export const prepare = (config: ModelConfig, w: WeightOf): Prepared => {
  const held: tf.Tensor[] = []
  const keep = <T extends tf.Tensor>(t: T): T => {
    held.push(t)
    return tf.keep(t)
  }
  const hd = headDim(config)
  const scale = 1 / Math.sqrt(hd)
  const project = (norm: string, weights: ReadonlyArray<tf.Tensor>, biases: ReadonlyArray<tf.Tensor> | undefined): Projection => {
    const weightT = tf.transpose(tf.concat(weights as tf.Tensor[], 0)) // [in, out]
    const nw = w(`${norm}.weight`)
    let bias: tf.Tensor | undefined = biases === undefined ? undefined : tf.concat(biases as tf.Tensor[], 0)
    if (config.norm === 'layernorm') {
      const pushed = tf.reshape(tf.matMul(tf.reshape(w(`${norm}.bias`), [1, -1]), weightT as tf.Tensor2D), [-1])
      bias = bias === undefined ? pushed : tf.add(bias, pushed)
    }
    return { weightT: keep(tf.mul(weightT, tf.reshape(nw, [-1, 1])) as tf.Tensor2D), bias: bias === undefined ? undefined : keep(bias as tf.Tensor1D) }
  }
  let built: Omit<Prepared, 'config' | 'dispose' | 'embed' | 'positions' | 'previous' | 'biases' | 'upBiases' | 'headBias' | 'canon'> | undefined
  tf.tidy(() => {
    const layers: LayerWeights[] = []
    for (let i = 0; i < config.layers; i++) {
      const a = `${layerPrefix(i)}.self_attn`
      const m = `${layerPrefix(i)}.mlp`
      const q = tf.mul(w(`${a}.q_proj.weight`), scale)
      const k = w(`${a}.k_proj.weight`)
      const weights = [q, k, w(`${a}.v_proj.weight`)]
      let biases: tf.Tensor[] | undefined
      if (config.qkvBias) {
        const bq = tf.mul(w(`${a}.q_proj.bias`), scale)
        const bk = w(`${a}.k_proj.bias`)
        biases = [bq, bk, w(`${a}.v_proj.bias`)]
      }
      layers.push({
        qkv: project(`${layerPrefix(i)}.input_layernorm`, weights, biases),
        oT: keep(tf.transpose(w(`${a}.o_proj.weight`)) as tf.Tensor2D),
        up: project(
          `${layerPrefix(i)}.post_attention_layernorm`,
          config.activation === 'swiglu' ? [w(`${m}.gate_proj.weight`), w(`${m}.up_proj.weight`)] : [w(`${m}.up_proj.weight`)],
          undefined
        ),
        downT: keep(tf.transpose(w(`${m}.down_proj.weight`)) as tf.Tensor2D)
      })
    }
    built = { layers, head: project('model.norm', [headWeight(config, w)], undefined) }
  })
  if (built === undefined) throw new Error('unreachable')
  const embed = keep(tf.clone(w('model.embed_tokens.weight') as tf.Tensor2D))
  const positions = config.positional === 'learned' ? keep(tf.clone(w('model.embed_positions.weight') as tf.Tensor2D)) : undefined
  const previous = config.prevTokenEmbedding === true ? keep(tf.clone(w(prevTokenWeight) as tf.Tensor2D)) : undefined
  const b = built
  const host = (t: tf.Tensor | undefined): Float32Array | undefined => (t === undefined ? undefined : new Float32Array(t.dataSync()))
  const biases = b.layers.map((layer) => host(layer.qkv.bias))
  const upBiases = b.layers.map((layer) => host(layer.up.bias))
  const headBias = b.head.bias === undefined ? undefined : new Float32Array(b.head.bias.dataSync())
  const canon =
    canonSpan(config) > 0
      ? b.layers.map((_, i) => ({ attn: new Float32Array(w(canonWeights(i).attn).dataSync()), mlp: new Float32Array(w(canonWeights(i).mlp).dataSync()) }))
      : []
  return { config, embed, positions, previous, ...b, biases, upBiases, canon, headBias, dispose: () => held.forEach((t) => t.dispose()) }
}

/** `a` [rows, in] @ `w` [in, out] on the backend, read back in bulk. */
const product = (a: Float32Array, rows: number, w: tf.Tensor2D): Float32Array => {
  // not returned from the tidy: tidy walks returned containers, element by element for arrays
  let out: Float32Array | undefined
  tf.tidy(() => {
    out = tf.matMul(tf.tensor2d(a, [rows, w.shape[0]]), w).dataSync() as Float32Array
  })
  return out!
}

const project = (p: Projection, biasHost: Float32Array | undefined, a: Float32Array, rows: number): Float32Array => {
  const out = product(a, rows, p.weightT)
  if (biasHost !== undefined) {
    const width = biasHost.length
    for (let r = 0; r < rows; r++) for (let j = 0; j < width; j++) out[r * width + j]! += biasHost[j]!
  }
  return out
}

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

/** Where the rows of a forward call come from: each row's slot, position and index in its item. */
interface RowsOf {
  readonly slot: Int32Array
  readonly pos: Int32Array
  readonly index: Int32Array
}

/**
 * A block's input with canon mixing, on the host (see `transformer.canonMix`): row r plus
 * `weight[k-1]` times its slot's residual row k positions back, from this call's rows or from
 * the slot's memory `history`; then the rows are remembered.
 */
const canonMixHost = (x: Float32Array, rows: RowsOf, D: number, span: number, maxLen: number, weight: Float32Array, history: Float32Array): Float32Array => {
  const M = rows.slot.length
  const out = new Float32Array(x)
  for (let r = 0; r < M; r++) {
    const slot = rows.slot[r]!
    const pos = rows.pos[r]!
    const index = rows.index[r]!
    for (let k = 1; k <= span && k <= pos; k++) {
      const from = index >= k ? x : history
      const at = index >= k ? (r - k) * D : (slot * maxLen + pos - k) * D
      const wk = (k - 1) * D
      for (let j = 0; j < D; j++) out[r * D + j]! += weight[wk + j]! * from[at + j]!
    }
  }
  for (let r = 0; r < M; r++) history.set(x.subarray(r * D, (r + 1) * D), (rows.slot[r]! * maxLen + rows.pos[r]!) * D)
  return out
}

const reserve = (config: ModelConfig, cache: Cache, needed: number): void => {
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

/** Tokens to run for one slot, appended after its cached positions. */
export interface Item {
  readonly slot: number
  readonly tokens: ArrayLike<number>
}

/**
 * Runs `items` through the model, writing their keys and values into the cache and advancing
 * the slots' lengths. Returns the next-token logits after each item's last token
 * ([items.length * vocab]).
 */
export const forward = (prep: Prepared, cache: Cache, items: ReadonlyArray<Item>): Float32Array => {
  const config = prep.config
  const D = config.dModel
  const hd = headDim(config)
  const H = config.heads
  const Hkv = config.kvHeads
  const rope = config.positional === 'rope'
  const qkWidth = (H + Hkv) * hd
  const width = qkWidth + Hkv * hd
  const rows: Array<{ readonly slot: number; readonly pos: number; readonly index: number; readonly token: number; readonly previous: number }> = []
  for (const item of items) {
    const start = cache.lengths[item.slot]!
    for (let i = 0; i < item.tokens.length; i++)
      rows.push({
        slot: item.slot,
        pos: start + i,
        index: i,
        token: item.tokens[i]!,
        previous: i === 0 ? (start === 0 ? -1 : cache.last[item.slot]!) : item.tokens[i - 1]!
      })
  }
  const M = rows.length
  reserve(
    config,
    cache,
    rows.reduce((n, r) => Math.max(n, r.pos + 1), 0)
  )
  const cap = cache.capacity
  let x = new Float32Array(0)
  tf.tidy(() => {
    let e = tf.gather(
      prep.embed,
      tf.tensor1d(
        Int32Array.from(rows, (r) => r.token),
        'int32'
      )
    )
    if (prep.positions !== undefined)
      e = tf.add(
        e,
        tf.gather(
          prep.positions,
          tf.tensor1d(
            Int32Array.from(rows, (r) => r.pos),
            'int32'
          )
        )
      )
    if (prep.previous !== undefined) {
      const gathered = tf.gather(
        prep.previous,
        tf.tensor1d(
          Int32Array.from(rows, (r) => Math.max(r.previous, 0)),
          'int32'
        )
      )
      e = tf.add(
        e,
        tf.mul(
          gathered,
          tf.tensor2d(
            Float32Array.from(rows, (r) => (r.previous < 0 ? 0 : 1)),
            [M, 1]
          )
        )
      )
    }
    x = new Float32Array(e.dataSync()) // a copy: updated in place below
  })
  const table = rope ? ropeTable(config.maxLen, 1, hd, config.ropeTheta) : undefined
  const attended = new Float32Array(M * D)
  const qv = new Float64Array(hd)
  const rotScratch = new Float32Array(hd)
  const acc = new Float64Array(hd)
  const scores = new Float64Array(cap)
  const slotOf = Int32Array.from(rows, (r) => r.slot)
  const posOf = Int32Array.from(rows, (r) => r.pos)
  const rowsOf: RowsOf = { slot: slotOf, pos: posOf, index: Int32Array.from(rows, (r) => r.index) }
  const span = canonSpan(config)
  const mixed = (l: number, site: 'attn' | 'mlp'): Float32Array =>
    span > 0 ? canonMixHost(x, rowsOf, D, span, cache.maxLen, prep.canon[l]![site], cache.canon[l]![site]) : x
  prep.layers.forEach((layer, l) => {
    const P = project(layer.qkv, prep.biases[l], normalize(config, mixed(l, 'attn'), M), M)
    const K = cache.k[l]!
    const V = cache.v[l]!
    placeQkv(P, width, qkWidth, rope ? table : undefined, K, V, cap, slotOf, posOf, H, Hkv, hd, rotScratch)
    attend(P, width, K, V, cap, slotOf, posOf, H, Hkv, hd, D, scores, qv, acc, attended)
    const o = product(attended, M, layer.oT)
    for (let i = 0; i < M * D; i++) x[i]! += o[i]!
    const U = project(layer.up, prep.upBiases[l], normalize(config, mixed(l, 'mlp'), M), M)
    const act = activate(config.activation === 'swiglu', U, M, config.ffn)
    const down = product(act, M, layer.downT)
    for (let i = 0; i < M * D; i++) x[i]! += down[i]!
  })
  items.forEach((item) => {
    cache.lengths[item.slot] = cache.lengths[item.slot]! + item.tokens.length
    if (item.tokens.length > 0) cache.last[item.slot] = item.tokens[item.tokens.length - 1]!
  })
  // logits after each item's last token
  const last = new Float32Array(items.length * D)
  let end = 0
  items.forEach((item, r) => {
    end += item.tokens.length
    last.set(x.subarray((end - 1) * D, end * D), r * D)
  })
  return project(prep.head, prep.headBias, normalize(config, last, items.length), items.length)
}
