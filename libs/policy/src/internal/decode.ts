/**
 * The incremental forward pass over a per-layer KV cache, for sampling (never differentiated).
 * Weights are prepared once per call (fused q|k|v and gate|up, pre-transposed) so each step is a
 * short chain of plain matMuls, the shape that is fast on wasm.
 *
 * Cache layout per layer: keys pre-transposed `kT` [rows, kvHeads, headDim, L] and values `v`
 * [rows, kvHeads, L, headDim], so a decode step needs no transpose. Columns are shared by all
 * rows; a column may be a hole for some row (masked out).
 */
import * as tf from '@tensorflow/tfjs'
import { headDim, type ModelConfig } from '../ModelConfig.js'
import { gelu, layerNorm, repeatKv, rmsNorm, rope, ropeTable, rows, swiglu } from './ops.js'
import { headWeight, layerPrefix, qkvWeights, type WeightOf } from './transformer.js'

interface LayerWeights {
  readonly norm1: readonly [tf.Tensor, tf.Tensor | undefined]
  readonly qkvT: tf.Tensor2D
  readonly qkvBias: tf.Tensor | undefined
  readonly oT: tf.Tensor2D
  readonly norm2: readonly [tf.Tensor, tf.Tensor | undefined]
  readonly upT: tf.Tensor2D
  readonly downT: tf.Tensor2D
}

export interface Prepared {
  readonly config: ModelConfig
  readonly embed: tf.Tensor2D
  readonly positions: tf.Tensor2D | undefined
  readonly layers: ReadonlyArray<LayerWeights>
  readonly finalNorm: readonly [tf.Tensor, tf.Tensor | undefined]
  readonly headT: tf.Tensor2D
  readonly dispose: () => void
}

/** Snapshot of the weights in decode layout. Holds tensors until `dispose`. */
export const prepare = (config: ModelConfig, w: WeightOf): Prepared => {
  const held: tf.Tensor[] = []
  const keep = <T extends tf.Tensor>(t: T): T => {
    held.push(t)
    return tf.keep(t)
  }
  const build = (): Omit<Prepared, 'config' | 'dispose'> => {
    const norm = (name: string): readonly [tf.Tensor, tf.Tensor | undefined] => [
      keep(tf.clone(w(`${name}.weight`))),
      config.norm === 'layernorm' ? keep(tf.clone(w(`${name}.bias`))) : undefined
    ]
    const layers: LayerWeights[] = []
    for (let i = 0; i < config.layers; i++) {
      const p = layerPrefix(i)
      const { weight, bias } = qkvWeights(config, w, i)
      const up =
        config.activation === 'swiglu' ? tf.concat([w(`${p}.mlp.gate_proj.weight`), w(`${p}.mlp.up_proj.weight`)], 0) : w(`${p}.mlp.up_proj.weight`)
      layers.push({
        norm1: norm(`${p}.input_layernorm`),
        qkvT: keep(tf.transpose(weight) as tf.Tensor2D),
        qkvBias: bias === undefined ? undefined : keep(bias),
        oT: keep(tf.transpose(w(`${p}.self_attn.o_proj.weight`)) as tf.Tensor2D),
        norm2: norm(`${p}.post_attention_layernorm`),
        upT: keep(tf.transpose(up) as tf.Tensor2D),
        downT: keep(tf.transpose(w(`${p}.mlp.down_proj.weight`)) as tf.Tensor2D)
      })
    }
    return {
      embed: keep(tf.clone(w('model.embed_tokens.weight') as tf.Tensor2D)),
      positions: config.positional === 'learned' ? keep(tf.clone(w('model.embed_positions.weight') as tf.Tensor2D)) : undefined,
      layers,
      finalNorm: norm('model.norm'),
      headT: keep(tf.transpose(headWeight(config, w)))
    }
  }
  let result: Omit<Prepared, 'config' | 'dispose'> | undefined
  tf.tidy(() => {
    result = build()
  })
  if (result === undefined) throw new Error('unreachable')
  return { config, ...result, dispose: () => held.forEach((t) => t.dispose()) }
}

const applyNorm = (config: ModelConfig, [weight, bias]: readonly [tf.Tensor, tf.Tensor | undefined], x: tf.Tensor): tf.Tensor =>
  config.norm === 'rmsnorm' ? rmsNorm(x, weight, config.normEps) : layerNorm(x, weight, bias as tf.Tensor, config.normEps)

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
  /** Per layer, the cache with the chunk's columns appended. */
  readonly kT: tf.Tensor4D[]
  readonly v: tf.Tensor4D[]
}

/**
 * Runs a chunk of `width` tokens per row against the cache (`kT`/`v` per layer, empty when
 * the cache has no columns). Does not dispose the old cache.
 */
export const forward = (prep: Prepared, kT: ReadonlyArray<tf.Tensor4D> | undefined, v: ReadonlyArray<tf.Tensor4D> | undefined, chunk: Chunk): ChunkResult => {
  const config = prep.config
  const { rows: R, width: N } = chunk
  const hd = headDim(config)
  const H = config.heads
  const Hkv = config.kvHeads
  const G = H / Hkv
  const D = config.dModel
  const L0 = kT?.[0]?.shape[3] ?? 0
  const out = tf.tidy(() => {
    const ids = tf.tensor1d(chunk.tokens, 'int32')
    let x: tf.Tensor = tf.gather(prep.embed, ids)
    if (prep.positions !== undefined) x = tf.add(x, tf.gather(prep.positions, tf.tensor1d(chunk.positions, 'int32')))
    let cos: tf.Tensor | undefined
    let sin: tf.Tensor | undefined
    if (config.positional === 'rope') {
      const table = ropeTable(config.maxLen, H + Hkv, hd, config.ropeTheta)
      const width = (H + Hkv) * hd
      cos = tf.tensor3d(rows(table.cos, width, chunk.positions), [R * N, H + Hkv, hd])
      sin = tf.tensor3d(rows(table.sin, width, chunk.positions), [R * N, H + Hkv, hd])
    }
    const mask = tf.tensor4d(chunk.mask, [R, 1, N, L0 + N])
    const newK: tf.Tensor4D[] = []
    const newV: tf.Tensor4D[] = []
    prep.layers.forEach((layer, i) => {
      const h = applyNorm(config, layer.norm1, x) as tf.Tensor2D
      let qkv: tf.Tensor = tf.matMul(h, layer.qkvT)
      if (layer.qkvBias !== undefined) qkv = tf.add(qkv, layer.qkvBias)
      const [qk0, v0] = tf.split(qkv, [(H + Hkv) * hd, Hkv * hd], 1)
      let qk = tf.reshape(qk0 as tf.Tensor, [R * N, H + Hkv, hd])
      if (cos !== undefined && sin !== undefined) qk = rope(qk, cos, sin)
      const [q, k] = tf.split(qk, [H, Hkv], 1)
      const kNew = N === 1 ? tf.reshape(k as tf.Tensor, [R, Hkv, hd, 1]) : tf.transpose(tf.reshape(k as tf.Tensor, [R, N, Hkv, hd]), [0, 2, 3, 1])
      const vNew = N === 1 ? tf.reshape(v0 as tf.Tensor, [R, Hkv, 1, hd]) : tf.transpose(tf.reshape(v0 as tf.Tensor, [R, N, Hkv, hd]), [0, 2, 1, 3])
      const kAll = (L0 === 0 ? kNew : tf.concat([kT![i]!, kNew], 3)) as tf.Tensor4D
      const vAll = (L0 === 0 ? vNew : tf.concat([v![i]!, vNew], 2)) as tf.Tensor4D
      newK.push(kAll)
      newV.push(vAll)
      let attended: tf.Tensor
      if (N === 1) {
        const q4 = tf.reshape(q as tf.Tensor, [R, Hkv, G, hd])
        const probs = tf.softmax(tf.add(tf.matMul(q4, kAll), mask))
        attended = tf.reshape(tf.matMul(probs, vAll), [R, D])
      } else {
        const q4 = tf.transpose(tf.reshape(q as tf.Tensor, [R, N, H, hd]), [0, 2, 1, 3])
        const probs = tf.softmax(tf.add(tf.matMul(q4, repeatKv(kAll, G)), mask))
        attended = tf.reshape(tf.transpose(tf.matMul(probs, repeatKv(vAll, G)), [0, 2, 1, 3]), [R * N, D])
      }
      x = tf.add(x, tf.matMul(attended as tf.Tensor2D, layer.oT))
      const h2 = applyNorm(config, layer.norm2, x) as tf.Tensor2D
      const up = tf.matMul(h2, layer.upT)
      let act: tf.Tensor
      if (config.activation === 'swiglu') {
        const [g, u] = tf.split(up, 2, 1)
        act = swiglu(g as tf.Tensor, u as tf.Tensor)
      } else act = gelu(up)
      x = tf.add(x, tf.matMul(act as tf.Tensor2D, layer.downT))
    })
    let last = x
    if (N > 1) {
      const index = new Int32Array(R)
      for (let r = 0; r < R; r++) index[r] = r * N + chunk.last[r]!
      last = tf.gather(x, tf.tensor1d(index, 'int32'))
    }
    const logits = tf.matMul(applyNorm(config, prep.finalNorm, last) as tf.Tensor2D, prep.headT)
    return { logits, kT: newK, v: newV }
  })
  const logits = out.logits.dataSync() as Float32Array
  out.logits.dispose()
  return { logits, kT: out.kT, v: out.v }
}
