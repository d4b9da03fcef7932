/**
 * The incremental forward pass for sampling (never differentiated), written for the per-op
 * cost of TensorFlow.js: a decode step on a small batch is dominated by op dispatch (tens of
 * microseconds per op on wasm), not arithmetic. So only the weight products run as tensor ops
 * (one fused product per block: q|k|v, o, gate|up, down, head), on weights prepared once per
 * call with the norm weights and the attention scale folded in. Everything between them
 * (norms, RoPE, attention over the cache, SwiGLU)
 * runs on Float32Arrays in JavaScript, and the KV cache is a preallocated Float32Array per
 * layer written in place at each slot's own position: no concatenation, no holes.
 */
import * as tf from '@tensorflow/tfjs'
import { headDim, type ModelConfig } from '../ModelConfig.js'
import { ropeTable } from './ops.js'
import { headWeight, layerPrefix, type WeightOf } from './transformer.js'

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
  /** Host copies of the embedding tables ([vocab * d], [maxLen * d]). */
  readonly embed: Float32Array
  readonly positions: Float32Array | undefined
  readonly layers: ReadonlyArray<LayerWeights>
  /** Host copies of each layer's q|k|v and gate|up biases (undefined without biases). */
  readonly biases: ReadonlyArray<Float32Array | undefined>
  readonly upBiases: ReadonlyArray<Float32Array | undefined>
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
  let built: Omit<Prepared, 'config' | 'dispose' | 'embed' | 'positions' | 'biases' | 'upBiases' | 'headBias'> | undefined
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
  const embed = new Float32Array(w('model.embed_tokens.weight').dataSync())
  const positions = config.positional === 'learned' ? new Float32Array(w('model.embed_positions.weight').dataSync()) : undefined
  const b = built
  const host = (t: tf.Tensor | undefined): Float32Array | undefined => (t === undefined ? undefined : new Float32Array(t.dataSync()))
  const biases = b.layers.map((layer) => host(layer.qkv.bias))
  const upBiases = b.layers.map((layer) => host(layer.up.bias))
  const headBias = b.head.bias === undefined ? undefined : new Float32Array(b.head.bias.dataSync())
  return { config, embed, positions, ...b, biases, upBiases, headBias, dispose: () => held.forEach((t) => t.dispose()) }
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

/** The normalisation alone, per row (weight and bias are folded into the next product). */
const normalize = (config: ModelConfig, x: Float32Array, rows: number): Float32Array => {
  const d = config.dModel
  const out = new Float32Array(rows * d)
  for (let r = 0; r < rows; r++) {
    const o = r * d
    let mean = 0
    if (config.norm === 'layernorm') {
      for (let j = 0; j < d; j++) mean += x[o + j]!
      mean /= d
    }
    let ss = 0
    for (let j = 0; j < d; j++) {
      const c = x[o + j]! - mean
      ss += c * c
    }
    const scale = 1 / Math.sqrt(ss / d + config.normEps)
    for (let j = 0; j < d; j++) out[o + j] = (x[o + j]! - mean) * scale
  }
  return out
}

const GELU_C = Math.sqrt(2 / Math.PI)

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
}

export const makeCache = (config: ModelConfig, slots: number, maxLen: number): Cache => ({
  slots,
  maxLen,
  capacity: 0,
  k: Array.from({ length: config.layers }, () => new Float32Array(0)),
  v: Array.from({ length: config.layers }, () => new Float32Array(0)),
  lengths: new Int32Array(slots)
})

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

/**
 * RoPE on q and k (`x * cos + rotate_half(x) * sin`) and the cache writes of k and v; the
 * rotated q is written back over q in `P`.
 */
const placeQkv = (
  P: Float32Array,
  width: number,
  qkWidth: number,
  table: { readonly cos: Float32Array; readonly sin: Float32Array } | undefined,
  K: Float32Array,
  V: Float32Array,
  cap: number,
  slotOf: Int32Array,
  posOf: Int32Array,
  H: number,
  Hkv: number,
  hd: number,
  scratch: Float32Array
): void => {
  const half = hd / 2
  for (let m = 0; m < slotOf.length; m++) {
    const slot = slotOf[m]!
    const pos = posOf[m]!
    const o = m * width
    for (let h = 0; h < H + Hkv; h++) {
      const src = o + h * hd
      const target = h < H ? P : K
      const dst = h < H ? src : ((slot * Hkv + (h - H)) * cap + pos) * hd
      if (table === undefined) {
        for (let i = 0; i < hd; i++) target[dst + i] = P[src + i]!
        continue
      }
      // x * cos + rotate_half(x) * sin, rotate_half(x) = [-x2, x1]
      const t = pos * hd
      for (let i = 0; i < hd; i++) {
        const rotated = i < half ? -P[src + i + half]! : P[src + i - half]!
        scratch[i] = P[src + i]! * table.cos[t + i]! + rotated * table.sin[t + i]!
      }
      for (let i = 0; i < hd; i++) target[dst + i] = scratch[i]!
    }
    for (let g = 0; g < Hkv; g++) V.set(P.subarray(o + qkWidth + g * hd, o + qkWidth + (g + 1) * hd), ((slot * Hkv + g) * cap + pos) * hd)
  }
}

/** SwiGLU (`U` = [gate | up] per row) or GELU (tanh approximation) on the host. */
const activate = (swigluAct: boolean, U: Float32Array, M: number, F: number): Float32Array => {
  const act = new Float32Array(M * F)
  if (swigluAct) {
    for (let m = 0; m < M; m++)
      for (let j = 0; j < F; j++) {
        const g = U[m * 2 * F + j]!
        act[m * F + j] = (g / (1 + Math.exp(-g))) * U[m * 2 * F + F + j]!
      }
  } else
    for (let i = 0; i < M * F; i++) {
      const u = U[i]!
      act[i] = 0.5 * u * (1 + Math.tanh(GELU_C * (u + 0.044715 * u * u * u)))
    }
  return act
}

/**
 * Attention of each row over its slot's cached positions up to its own. A top-level function
 * with everything in locals: the hot loop of decoding.
 */
const attend = (
  P: Float32Array,
  width: number,
  K: Float32Array,
  V: Float32Array,
  cap: number,
  slotOf: Int32Array,
  posOf: Int32Array,
  H: number,
  Hkv: number,
  hd: number,
  D: number,
  scores: Float64Array,
  qv: Float64Array,
  acc: Float64Array,
  attended: Float32Array
): void => {
  const G = H / Hkv
  const M = slotOf.length
  for (let m = 0; m < M; m++) {
    const slot = slotOf[m]!
    const pos = posOf[m]!
    for (let h = 0; h < H; h++) {
      const base = (slot * Hkv + ((h / G) | 0)) * cap * hd
      const qo = m * width + h * hd
      for (let i = 0; i < hd; i++) qv[i] = P[qo + i]!
      let max = -Infinity
      const hd4 = hd - (hd % 4)
      for (let j = 0, ko = base; j <= pos; j++, ko += hd) {
        let d0 = 0
        let d1 = 0
        let d2 = 0
        let d3 = 0
        let i = 0
        for (; i < hd4; i += 4) {
          d0 += qv[i]! * K[ko + i]!
          d1 += qv[i + 1]! * K[ko + i + 1]!
          d2 += qv[i + 2]! * K[ko + i + 2]!
          d3 += qv[i + 3]! * K[ko + i + 3]!
        }
        for (; i < hd; i++) d0 += qv[i]! * K[ko + i]!
        const dot = d0 + d1 + d2 + d3
        scores[j] = dot
        if (dot > max) max = dot
      }
      let sum = 0
      for (let j = 0; j <= pos; j++) {
        const e = Math.exp(scores[j]! - max)
        scores[j] = e
        sum += e
      }
      acc.fill(0)
      for (let j = 0, vo = base; j <= pos; j++, vo += hd) {
        const p = scores[j]!
        let i = 0
        for (; i < hd4; i += 4) {
          acc[i]! += p * V[vo + i]!
          acc[i + 1]! += p * V[vo + i + 1]!
          acc[i + 2]! += p * V[vo + i + 2]!
          acc[i + 3]! += p * V[vo + i + 3]!
        }
        for (; i < hd; i++) acc[i]! += p * V[vo + i]!
      }
      const out = m * D + h * hd
      const inv = 1 / sum
      for (let i = 0; i < hd; i++) attended[out + i] = acc[i]! * inv
    }
  }
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
  const rows: Array<{ readonly slot: number; readonly pos: number; readonly token: number }> = []
  for (const item of items) {
    const start = cache.lengths[item.slot]!
    for (let i = 0; i < item.tokens.length; i++) rows.push({ slot: item.slot, pos: start + i, token: item.tokens[i]! })
  }
  const M = rows.length
  reserve(config, cache, Math.max(...rows.map((r) => r.pos + 1)))
  const cap = cache.capacity
  const x = new Float32Array(M * D)
  rows.forEach(({ token, pos }, m) => {
    x.set(prep.embed.subarray(token * D, (token + 1) * D), m * D)
    if (prep.positions !== undefined) for (let j = 0; j < D; j++) x[m * D + j]! += prep.positions[pos * D + j]!
  })
  const table = rope ? ropeTable(config.maxLen, 1, hd, config.ropeTheta) : undefined
  const attended = new Float32Array(M * D)
  const qv = new Float64Array(hd)
  const rotScratch = new Float32Array(hd)
  const acc = new Float64Array(hd)
  const scores = new Float64Array(cap)
  const slotOf = Int32Array.from(rows, (r) => r.slot)
  const posOf = Int32Array.from(rows, (r) => r.pos)
  prep.layers.forEach((layer, l) => {
    const P = project(layer.qkv, prep.biases[l], normalize(config, x, M), M)
    const K = cache.k[l]!
    const V = cache.v[l]!
    placeQkv(P, width, qkWidth, rope ? table : undefined, K, V, cap, slotOf, posOf, H, Hkv, hd, rotScratch)
    attend(P, width, K, V, cap, slotOf, posOf, H, Hkv, hd, D, scores, qv, acc, attended)
    const o = product(attended, M, layer.oT)
    for (let i = 0; i < M * D; i++) x[i]! += o[i]!
    const U = project(layer.up, prep.upBiases[l], normalize(config, x, M), M)
    const act = activate(config.activation === 'swiglu', U, M, config.ffn)
    const down = product(act, M, layer.downT)
    for (let i = 0; i < M * D; i++) x[i]! += down[i]!
  })
  items.forEach((item) => (cache.lengths[item.slot] = cache.lengths[item.slot]! + item.tokens.length))
  // logits after each item's last token
  const last = new Float32Array(items.length * D)
  let end = 0
  items.forEach((item, r) => {
    end += item.tokens.length
    last.set(x.subarray((end - 1) * D, end * D), r * D)
  })
  return project(prep.head, prep.headBias, normalize(config, last, items.length), items.length)
}
