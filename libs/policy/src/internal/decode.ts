/**
 * The incremental forward pass over a per-layer KV cache, for sampling (never differentiated).
 * Written for the per-op cost of wasm: weights are prepared once per call (transposed, the
 * attention scale folded into q), embeddings are looked up on the host (a wasm gather is slower
 * than building the rows in JavaScript), projections are separate products (a wasm split copies
 * its whole input per output), and both caches grow along axis 2 (block copies).
 *
 * Cache layout per layer: keys and values [rows, kvHeads, L, headDim]. Columns are shared by all
 * rows; a column may be a hole for some row (masked out).
 */
import * as tf from '@tensorflow/tfjs'
import { headDim, type ModelConfig } from '../ModelConfig.js'
import { gelu, repeatKv, ropeTable, rotationOf, rows, swiglu } from './ops.js'
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
  /** input norm + [q | k | rotate(q) | rotate(k) | v] (q scaled by 1/sqrt(hd)). */
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
  readonly head: Projection
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
  const rotation = tf.tensor2d(rotationOf(hd).r, [hd, hd])
  /** Rotates every head of the columns of `t` [rows, heads * hd]. */
  const rotate = (t: tf.Tensor): tf.Tensor => tf.reshape(tf.matMul(tf.reshape(t, [-1, hd]) as tf.Tensor2D, rotation), t.shape)
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
  let built: Omit<Prepared, 'config' | 'dispose' | 'embed' | 'positions'> | undefined
  tf.tidy(() => {
    const layers: LayerWeights[] = []
    for (let i = 0; i < config.layers; i++) {
      const a = `${layerPrefix(i)}.self_attn`
      const m = `${layerPrefix(i)}.mlp`
      const q = tf.mul(w(`${a}.q_proj.weight`), scale)
      const k = w(`${a}.k_proj.weight`)
      const rot = (t: tf.Tensor): tf.Tensor => tf.transpose(rotate(tf.transpose(t)))
      const weights = config.positional === 'rope' ? [q, k, rot(q), rot(k), w(`${a}.v_proj.weight`)] : [q, k, w(`${a}.v_proj.weight`)]
      let biases: tf.Tensor[] | undefined
      if (config.qkvBias) {
        const bq = tf.mul(w(`${a}.q_proj.bias`), scale)
        const bk = w(`${a}.k_proj.bias`)
        const rb = (t: tf.Tensor): tf.Tensor => tf.reshape(rotate(tf.reshape(t, [1, -1])), [-1])
        biases = config.positional === 'rope' ? [bq, bk, rb(bq), rb(bk), w(`${a}.v_proj.bias`)] : [bq, bk, w(`${a}.v_proj.bias`)]
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
  rotation.dispose()
  if (built === undefined) throw new Error('unreachable')
  const embed = new Float32Array(w('model.embed_tokens.weight').dataSync())
  const positions = config.positional === 'learned' ? new Float32Array(w('model.embed_positions.weight').dataSync()) : undefined
  return { config, embed, positions, ...built, dispose: () => held.forEach((t) => t.dispose()) }
}

/** The normalisation alone (weight and bias are folded into the next product). */
const normalize = (config: ModelConfig, x: tf.Tensor): tf.Tensor => {
  const centered = config.norm === 'layernorm' ? tf.sub(x, tf.mean(x, -1, true)) : x
  return tf.mul(centered, tf.rsqrt(tf.add(tf.mean(tf.square(centered), -1, true), config.normEps)))
}

const apply = (p: Projection, x: tf.Tensor): tf.Tensor => {
  const y = tf.matMul(x as tf.Tensor2D, p.weightT)
  return p.bias === undefined ? y : tf.add(y, p.bias)
}

export interface Chunk {
  /** Rows in this call. */
  readonly rows: number
  /** New columns per row (tokens per row, padded). */
  readonly width: number
  /** [rows * width] token ids. */
  readonly tokens: Int32Array
  /** [rows * width] absolute positions. */
  readonly positions: Int32Array
  /** [rows * width * (L + width)] additive mask (0 = attend, -1e9 = masked). */
  readonly mask: Float32Array
  /** [rows] index (within width) of the row's position whose next-token logits are wanted. */
  readonly last: Int32Array
}

export interface ChunkResult {
  /** [rows * vocab] next-token logits. */
  readonly logits: Float32Array
  /** Per layer, the caches with the chunk's columns appended. */
  readonly k: tf.Tensor4D[]
  readonly v: tf.Tensor4D[]
}

/** Input rows (token embedding + learned position) built on the host. */
const inputRows = (prep: Prepared, chunk: Chunk): Float32Array => {
  const d = prep.config.dModel
  const out = new Float32Array(chunk.tokens.length * d)
  for (let i = 0; i < chunk.tokens.length; i++) {
    const tok = chunk.tokens[i]!
    out.set(prep.embed.subarray(tok * d, (tok + 1) * d), i * d)
    if (prep.positions !== undefined) {
      const p = chunk.positions[i]!
      for (let j = 0; j < d; j++) out[i * d + j]! += prep.positions[p * d + j]!
    }
  }
  return out
}

/**
 * Runs a chunk of `width` tokens per row against the cache (`k`/`v` per layer, undefined when
 * the cache has no columns). Does not dispose the old cache.
 */
export const forward = (prep: Prepared, k: ReadonlyArray<tf.Tensor4D> | undefined, v: ReadonlyArray<tf.Tensor4D> | undefined, chunk: Chunk): ChunkResult => {
  const config = prep.config
  const { rows: R, width: N } = chunk
  const hd = headDim(config)
  const H = config.heads
  const Hkv = config.kvHeads
  const G = H / Hkv
  const D = config.dModel
  const L0 = k?.[0]?.shape[2] ?? 0
  const rope = config.positional === 'rope'
  const qkWidth = (H + Hkv) * hd
  const out = tf.tidy(() => {
    let x: tf.Tensor = tf.tensor2d(inputRows(prep, chunk), [R * N, D])
    let cos: tf.Tensor | undefined
    let sin: tf.Tensor | undefined
    if (rope) {
      const table = ropeTable(config.maxLen, H + Hkv, hd, config.ropeTheta)
      cos = tf.tensor2d(rows(table.cos, qkWidth, chunk.positions), [R * N, qkWidth])
      sin = tf.tensor2d(rows(table.sin, qkWidth, chunk.positions), [R * N, qkWidth])
    }
    const mask = tf.tensor4d(chunk.mask, [R, 1, N, L0 + N])
    const newK: tf.Tensor4D[] = []
    const newV: tf.Tensor4D[] = []
    prep.layers.forEach((layer, i) => {
      const projected = apply(layer.qkv, normalize(config, x))
      let qk: tf.Tensor
      let vv: tf.Tensor
      if (cos !== undefined && sin !== undefined) {
        const [plain, rotated, v0] = tf.split(projected, [qkWidth, qkWidth, Hkv * hd], 1) as [tf.Tensor, tf.Tensor, tf.Tensor]
        qk = tf.add(tf.mul(plain, cos), tf.mul(rotated, sin))
        vv = v0
      } else [qk, vv] = tf.split(projected, [qkWidth, Hkv * hd], 1) as [tf.Tensor, tf.Tensor]
      const [q, kk] = tf.split(qk, [H * hd, Hkv * hd], 1) as [tf.Tensor, tf.Tensor]
      const toCache = (t: tf.Tensor): tf.Tensor4D =>
        (N === 1 ? tf.reshape(t, [R, Hkv, 1, hd]) : tf.transpose(tf.reshape(t, [R, N, Hkv, hd]), [0, 2, 1, 3])) as tf.Tensor4D
      const kAll = (L0 === 0 ? toCache(kk) : tf.concat([k![i]!, toCache(kk)], 2)) as tf.Tensor4D
      const vAll = (L0 === 0 ? toCache(vv) : tf.concat([v![i]!, toCache(vv)], 2)) as tf.Tensor4D
      newK.push(kAll)
      newV.push(vAll)
      let attended: tf.Tensor
      if (N === 1) {
        const q4 = tf.reshape(q, [R, Hkv, G, hd])
        const probs = tf.softmax(tf.add(tf.matMul(q4, kAll, false, true), mask))
        attended = tf.reshape(tf.matMul(probs, vAll), [R, D])
      } else {
        const q4 = tf.transpose(tf.reshape(q, [R, N, H, hd]), [0, 2, 1, 3])
        const probs = tf.softmax(tf.add(tf.matMul(q4, repeatKv(kAll, G), false, true), mask))
        attended = tf.reshape(tf.transpose(tf.matMul(probs, repeatKv(vAll, G)), [0, 2, 1, 3]), [R * N, D])
      }
      x = tf.add(x, tf.matMul(attended as tf.Tensor2D, layer.oT))
      const up = apply(layer.up, normalize(config, x))
      let act: tf.Tensor
      if (config.activation === 'swiglu') {
        const [g, u] = tf.split(up, 2, 1) as [tf.Tensor, tf.Tensor]
        act = swiglu(g, u)
      } else act = gelu(up)
      x = tf.add(x, tf.matMul(act as tf.Tensor2D, layer.downT))
    })
    let last = x
    if (N > 1) {
      const index = new Int32Array(R)
      for (let r = 0; r < R; r++) index[r] = r * N + chunk.last[r]!
      last = tf.gather(x, tf.tensor1d(index, 'int32'))
    }
    const logits = apply(prep.head, normalize(config, last))
    return { logits, k: newK, v: newV }
  })
  const logits = out.logits.dataSync() as Float32Array
  out.logits.dispose()
  return { logits, k: out.k, v: out.v }
}
