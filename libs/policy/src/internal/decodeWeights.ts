/**
 * The weights as the decoder (`decode.ts`) reads them: each block's products as host-to-host
 * functions ({@link Product}), the embedding tables, and host copies of what the host kernels
 * apply between the products (norms, canon weights). Two layouts:
 * - `copy` ({@link prepare}, here): one fused, transposed product per block with the norm
 *   weights and the attention scale folded in: a second copy of the model, fastest where a
 *   product's transposed operand costs (wasm, cpu) and on small models (fewest ops);
 * - `shared` (`decodeShared.ts`): the trunk's own variables, through products with transpose
 *   flags: no second copy (at real sizes the copy is as large as the model).
 * Built once per set of weights.
 */
import * as tf from '@tensorflow/tfjs'
import { canonSpan, queryScale, type ModelConfig } from '../ModelConfig.js'
import { blockNorms, canonWeights, layerPrefix, prevTokenWeight, qkNorms } from './layout.js'
import { headWeight, type WeightOf } from './transformer.js'

/**
 * `a` [rows, in] on the host through a block's product(s): [rows, out] on the host, biases
 * added (and, when its input is normed, the norm's weight and bias applied: the kernel computes
 * only the normalisation itself).
 */
export type Product = (a: Float32Array, rows: number) => Float32Array

/**
 * The layout of the decoder's weights: a folded copy, or the trunk's own variables (see above).
 *
 * @since 0.6.0
 */
export type Layout = 'copy' | 'shared'

/** A norm whose weight (and bias) are folded into the product that follows it. */
interface Projection {
  /** [in, out], norm weight folded into its rows. */
  readonly weightT: tf.Tensor2D
  /** [out]: the projection bias plus the norm bias pushed through the weight (read to the host inside the tidy). */
  readonly bias: tf.Tensor1D | undefined
}

/** Host copies of the norms applied between the products (`1 + w` already added), undefined where none. */
export interface HostNorms {
  /** Query and key norms (`qkNorm`): [headDim] per head, or the whole projection's width. */
  readonly q: Float32Array | undefined
  readonly k: Float32Array | undefined
  /** Norms of the attention's and the MLP's outputs (`blockNorms` sandwich and post). */
  readonly postAttn: Float32Array | undefined
  readonly postMlp: Float32Array | undefined
}

export interface LayerWeights {
  /** input norm + [q | k | v] + biases (q scaled by the attention scale unless a query norm follows). */
  readonly qkv: Product
  /** Whether `qkv`'s input is normed (the kernel then normalises it first), and `up`'s. */
  readonly qkvNormed: boolean
  readonly upNormed: boolean
  readonly o: Product
  /** pre-MLP norm + [gate | up] (or up alone for GELU). */
  readonly up: Product
  readonly down: Product
  /**
   * pre-MLP norm'd rows through gate|up, the activation and down in one call (the `shared`
   * layout): the [rows, ffn] activation stays on the backend. Without it: `up`, the host's
   * activation, `down`.
   */
  readonly mlp?: Product
}

export interface Prepared {
  readonly config: ModelConfig
  /** The embedding tables ([vocab, d], [maxLen, d]); rows are gathered on the backend. */
  readonly embed: tf.Tensor2D
  readonly positions: tf.Tensor2D | undefined
  /** The previous-token table (`ModelConfig.prevTokenEmbedding`), else undefined. */
  readonly previous: tf.Tensor2D | undefined
  readonly layers: ReadonlyArray<LayerWeights>
  /** Host copies of each layer's canon weights ([span * dModel] before attention, before the MLP), empty when off. */
  readonly canon: ReadonlyArray<{ readonly attn: Float32Array; readonly mlp: Float32Array }>
  readonly norms: ReadonlyArray<HostNorms>
  /** The final norm (its weight) + the output head: [rows, vocab] logits (before soft-capping). */
  readonly head: Product
  readonly dispose: () => void
}

/** `f` of `a` [rows, in] on the backend, read back in bulk. */
export const product = (a: Float32Array, rows: number, f: (x: tf.Tensor2D) => tf.Tensor): Float32Array => {
  // not returned from the tidy: tidy walks returned containers, element by element for arrays
  let out: Float32Array | undefined
  tf.tidy(() => {
    out = f(tf.tensor2d(a, [rows, a.length / rows])).dataSync() as Float32Array
  })
  return out!
}

/** Adds `bias` (a host copy; none: undefined) to each of the `rows` rows of `out`, in place. */
export const addBias = (out: Float32Array, rows: number, bias: Float32Array | undefined): Float32Array => {
  if (bias === undefined) return out
  const width = bias.length
  for (let r = 0; r < rows; r++) for (let j = 0; j < width; j++) out[r * width + j]! += bias[j]!
  return out
}

/** The host copy of a tensor (undefined for none). */
export const host = (t: tf.Tensor | undefined): Float32Array | undefined => (t === undefined ? undefined : new Float32Array(t.dataSync()))

/** The host copies of norm `name`'s weight (`1 + w` with `normOffset`) and, for LayerNorm, its bias. */
export const hostNorm = (config: ModelConfig, w: WeightOf, name: string): { readonly weight: Float32Array; readonly bias: Float32Array | undefined } => {
  const weight = new Float32Array(w(`${name}.weight`).dataSync())
  if (config.normOffset === true) for (let j = 0; j < weight.length; j++) weight[j]! += 1
  return { weight, bias: config.norm === 'layernorm' ? host(w(`${name}.bias`)) : undefined }
}

/** Keeps a tensor past the tidy it is made in, to be disposed with the prepared weights. */
type Keep = <T extends tf.Tensor>(t: T) => T

/** Folds the norm named `norm` (none: undefined) into the product by `weights` ([out_i, in] each, stacked) and their `biases`. */
type Fold = (norm: string | undefined, weights: ReadonlyArray<tf.Tensor>, biases: ReadonlyArray<tf.Tensor> | undefined) => Projection

const foldNorm =
  (config: ModelConfig, w: WeightOf, keep: Keep): Fold =>
  (norm, weights, biases) => {
    const weightT = tf.transpose(tf.concat(weights as tf.Tensor[], 0)) // [in, out]
    let bias: tf.Tensor | undefined = biases === undefined ? undefined : tf.concat(biases as tf.Tensor[], 0)
    if (norm === undefined) return { weightT: keep(weightT as tf.Tensor2D), bias: bias as tf.Tensor1D | undefined }
    const nw = config.normOffset === true ? tf.add(w(`${norm}.weight`), 1) : w(`${norm}.weight`)
    if (config.norm === 'layernorm') {
      const pushed = tf.reshape(tf.matMul(tf.reshape(w(`${norm}.bias`), [1, -1]), weightT as tf.Tensor2D), [-1])
      bias = bias === undefined ? pushed : tf.add(bias, pushed)
    }
    return { weightT: keep(tf.mul(weightT, tf.reshape(nw, [-1, 1])) as tf.Tensor2D), bias: bias as tf.Tensor1D | undefined }
  }

/** A folded projection as a {@link Product} (its bias read to the host once). */
const folded = (p: Projection): Product => {
  const bias = host(p.bias)
  return (a, rows) =>
    addBias(
      product(a, rows, (x) => tf.matMul(x, p.weightT)),
      rows,
      bias
    )
}

/** A plain transposed weight [in, out] as a {@link Product}. */
const plain =
  (weightT: tf.Tensor2D): Product =>
  (a, rows) =>
    product(a, rows, (x) => tf.matMul(x, weightT))

/** Layer `i` in decode layout (inside a tidy: only what `keep` keeps survives it). */
const layerWeights = (config: ModelConfig, w: WeightOf, keep: Keep, fold: Fold, i: number): LayerWeights => {
  const scale = qkNorms(config, i) === undefined ? queryScale(config) : 1
  const norms = blockNorms(config, i)
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
  return {
    qkv: folded(fold(norms.preAttn, weights, biases)),
    qkvNormed: norms.preAttn !== undefined,
    upNormed: norms.preMlp !== undefined,
    o: plain(keep(tf.transpose(w(`${a}.o_proj.weight`)) as tf.Tensor2D)),
    up: folded(
      fold(norms.preMlp, config.activation === 'gelu' ? [w(`${m}.up_proj.weight`)] : [w(`${m}.gate_proj.weight`), w(`${m}.up_proj.weight`)], undefined)
    ),
    down: plain(keep(tf.transpose(w(`${m}.down_proj.weight`)) as tf.Tensor2D))
  }
}

/** Layer `i`'s norms between the products, on the host. */
export const hostNorms = (config: ModelConfig, w: WeightOf, i: number): HostNorms => {
  const of = (name: string | undefined): Float32Array | undefined => (name === undefined ? undefined : hostNorm(config, w, name).weight)
  const qk = qkNorms(config, i)
  const norms = blockNorms(config, i)
  return { q: of(qk?.q), k: of(qk?.k), postAttn: of(norms.postAttn), postMlp: of(norms.postMlp) }
}

/** The host copies of each layer's canon weights (empty when off). */
export const hostCanon = (config: ModelConfig, w: WeightOf): Prepared['canon'] =>
  canonSpan(config) > 0 ? Array.from({ length: config.layers }, (_, i) => ({ attn: host(w(canonWeights(i).attn))!, mlp: host(w(canonWeights(i).mlp))! })) : []

/** Snapshot of the weights in the `copy` layout. Holds tensors until `dispose`. */
export const prepare = (config: ModelConfig, w: WeightOf): Prepared => {
  const held: tf.Tensor[] = []
  const keep: Keep = (t) => {
    held.push(t)
    return tf.keep(t)
  }
  const fold = foldNorm(config, w, keep)
  let built: Pick<Prepared, 'layers' | 'head'> | undefined
  tf.tidy(() => {
    const layers: LayerWeights[] = []
    for (let i = 0; i < config.layers; i++) layers.push(layerWeights(config, w, keep, fold, i))
    built = { layers, head: folded(fold('model.norm', [headWeight(config, w)], undefined)) }
  })
  if (built === undefined) throw new Error('unreachable')
  const embed = keep(tf.clone(w('model.embed_tokens.weight') as tf.Tensor2D))
  const positions = config.positional === 'learned' ? keep(tf.clone(w('model.embed_positions.weight') as tf.Tensor2D)) : undefined
  const previous = config.prevTokenEmbedding === true ? keep(tf.clone(w(prevTokenWeight) as tf.Tensor2D)) : undefined
  const norms = built.layers.map((_, i) => hostNorms(config, w, i))
  return { config, embed, positions, previous, ...built, canon: hostCanon(config, w), norms, dispose: () => held.forEach((t) => t.dispose()) }
}
