/**
 * The weights in decode layout (see `decode.ts`): one fused, transposed product per block, with
 * the norm weights and the attention scale folded in, and host copies of what the host kernels
 * add between the products (biases, canon weights). Built once per set of weights.
 */
import * as tf from '@tensorflow/tfjs'
import { canonSpan, queryScale, type ModelConfig } from '../ModelConfig.js'
import { blockNorms, canonWeights, layerPrefix, prevTokenWeight, qkNorms } from './layout.js'
import { headWeight, type WeightOf } from './transformer.js'

/**
 * A norm whose weight (and bias) are folded into the product that follows it: the kernel
 * computes only the normalisation itself.
 */
export interface Projection {
  /** [in, out], norm weight folded into its rows. */
  readonly weightT: tf.Tensor2D
  /** [out]: the projection bias plus the norm bias pushed through the weight. */
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

interface LayerWeights {
  /** input norm + [q | k | v] (q scaled by the attention scale unless a query norm follows). */
  readonly qkv: Projection
  /** Whether a norm is folded into `qkv` (the kernel then normalises its input), and into `up`. */
  readonly qkvNormed: boolean
  readonly upNormed: boolean
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
  readonly norms: ReadonlyArray<HostNorms>
  readonly head: Projection
  readonly headBias: Float32Array | undefined
  readonly dispose: () => void
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
    if (norm === undefined) return { weightT: keep(weightT as tf.Tensor2D), bias: bias === undefined ? undefined : keep(bias as tf.Tensor1D) }
    const nw = config.normOffset === true ? tf.add(w(`${norm}.weight`), 1) : w(`${norm}.weight`)
    if (config.norm === 'layernorm') {
      const pushed = tf.reshape(tf.matMul(tf.reshape(w(`${norm}.bias`), [1, -1]), weightT as tf.Tensor2D), [-1])
      bias = bias === undefined ? pushed : tf.add(bias, pushed)
    }
    return { weightT: keep(tf.mul(weightT, tf.reshape(nw, [-1, 1])) as tf.Tensor2D), bias: bias === undefined ? undefined : keep(bias as tf.Tensor1D) }
  }

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
    qkv: fold(norms.preAttn, weights, biases),
    qkvNormed: norms.preAttn !== undefined,
    upNormed: norms.preMlp !== undefined,
    oT: keep(tf.transpose(w(`${a}.o_proj.weight`)) as tf.Tensor2D),
    up: fold(norms.preMlp, config.activation === 'gelu' ? [w(`${m}.up_proj.weight`)] : [w(`${m}.gate_proj.weight`), w(`${m}.up_proj.weight`)], undefined),
    downT: keep(tf.transpose(w(`${m}.down_proj.weight`)) as tf.Tensor2D)
  }
}

const host = (t: tf.Tensor | undefined): Float32Array | undefined => (t === undefined ? undefined : new Float32Array(t.dataSync()))

/** Layer `i`'s norms between the products, on the host. */
const hostNorms = (config: ModelConfig, w: WeightOf, i: number): HostNorms => {
  const of = (name: string | undefined): Float32Array | undefined => {
    if (name === undefined) return undefined
    const out = new Float32Array(w(`${name}.weight`).dataSync())
    if (config.normOffset === true) for (let j = 0; j < out.length; j++) out[j]! += 1
    return out
  }
  const qk = qkNorms(config, i)
  const norms = blockNorms(config, i)
  return { q: of(qk?.q), k: of(qk?.k), postAttn: of(norms.postAttn), postMlp: of(norms.postMlp) }
}

/** Snapshot of the weights in decode layout. Holds tensors until `dispose`. */
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
    built = { layers, head: fold('model.norm', [headWeight(config, w)], undefined) }
  })
  if (built === undefined) throw new Error('unreachable')
  const embed = keep(tf.clone(w('model.embed_tokens.weight') as tf.Tensor2D))
  const positions = config.positional === 'learned' ? keep(tf.clone(w('model.embed_positions.weight') as tf.Tensor2D)) : undefined
  const previous = config.prevTokenEmbedding === true ? keep(tf.clone(w(prevTokenWeight) as tf.Tensor2D)) : undefined
  const b = built
  const biases = b.layers.map((layer) => host(layer.qkv.bias))
  const upBiases = b.layers.map((layer) => host(layer.up.bias))
  const headBias = host(b.head.bias)
  const canon =
    canonSpan(config) > 0
      ? b.layers.map((_, i) => ({ attn: new Float32Array(w(canonWeights(i).attn).dataSync()), mlp: new Float32Array(w(canonWeights(i).mlp).dataSync()) }))
      : []
  const norms = b.layers.map((_, i) => hostNorms(config, w, i))
  return { config, embed, positions, previous, ...b, biases, upBiases, canon, norms, headBias, dispose: () => held.forEach((t) => t.dispose()) }
}
