/**
 * The weights in decode layout (see `decode.ts`): one fused, transposed product per block, with
 * the norm weights and the attention scale folded in, and host copies of what the host kernels
 * add between the products (biases, canon weights). Built once per set of weights.
 */
import * as tf from '@tensorflow/tfjs'
import { canonSpan, headDim, type ModelConfig } from '../ModelConfig.js'
import { canonWeights, headWeight, layerPrefix, prevTokenWeight, type WeightOf } from './transformer.js'

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

/** Keeps a tensor past the tidy it is made in, to be disposed with the prepared weights. */
type Keep = <T extends tf.Tensor>(t: T) => T

/** Folds the norm named `norm` into the product by `weights` ([out_i, in] each, stacked) and their `biases`. */
type Fold = (norm: string, weights: ReadonlyArray<tf.Tensor>, biases: ReadonlyArray<tf.Tensor> | undefined) => Projection

const foldNorm =
  (config: ModelConfig, w: WeightOf, keep: Keep): Fold =>
  (norm, weights, biases) => {
    const weightT = tf.transpose(tf.concat(weights as tf.Tensor[], 0)) // [in, out]
    const nw = w(`${norm}.weight`)
    let bias: tf.Tensor | undefined = biases === undefined ? undefined : tf.concat(biases as tf.Tensor[], 0)
    if (config.norm === 'layernorm') {
      const pushed = tf.reshape(tf.matMul(tf.reshape(w(`${norm}.bias`), [1, -1]), weightT as tf.Tensor2D), [-1])
      bias = bias === undefined ? pushed : tf.add(bias, pushed)
    }
    return { weightT: keep(tf.mul(weightT, tf.reshape(nw, [-1, 1])) as tf.Tensor2D), bias: bias === undefined ? undefined : keep(bias as tf.Tensor1D) }
  }

/** Layer `i` in decode layout (inside a tidy: only what `keep` keeps survives it). */
const layerWeights = (config: ModelConfig, w: WeightOf, keep: Keep, fold: Fold, i: number): LayerWeights => {
  const scale = 1 / Math.sqrt(headDim(config))
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
    qkv: fold(`${layerPrefix(i)}.input_layernorm`, weights, biases),
    oT: keep(tf.transpose(w(`${a}.o_proj.weight`)) as tf.Tensor2D),
    up: fold(
      `${layerPrefix(i)}.post_attention_layernorm`,
      config.activation === 'swiglu' ? [w(`${m}.gate_proj.weight`), w(`${m}.up_proj.weight`)] : [w(`${m}.up_proj.weight`)],
      undefined
    ),
    downT: keep(tf.transpose(w(`${m}.down_proj.weight`)) as tf.Tensor2D)
  }
}

const host = (t: tf.Tensor | undefined): Float32Array | undefined => (t === undefined ? undefined : new Float32Array(t.dataSync()))

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
  return { config, embed, positions, previous, ...b, biases, upBiases, canon, headBias, dispose: () => held.forEach((t) => t.dispose()) }
}
