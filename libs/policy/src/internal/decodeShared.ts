/**
 * The decoder's weights in the `shared` layout (see `decodeWeights.ts`): the trunk's own
 * variables, read through products with transpose flags (`x W^T`), so that sampling holds no
 * second copy of the model. The norms before the products are applied on the host (their
 * weights and biases are host copies), q, k and v are three products of one call, an adapted
 * weight runs as `x W^T + scale (x A^T) B^T` (LoRA's two small products), the attention scale
 * multiplies q on the host. Only the host copies (norms, biases, canon weights) are rebuilt
 * after an optimizer step: the products read the variables themselves.
 */
import * as tf from '@tensorflow/tfjs'
import { headDim, queryScale, type ModelConfig } from '../ModelConfig.js'
import { addBias, host, hostCanon, hostNorm, hostNorms, product, type LayerWeights, type Prepared, type Product } from './decodeWeights.js'
import { blockNorms, layerPrefix, prevTokenWeight, qkNorms } from './layout.js'
import { mlp, type WeightOf } from './transformer.js'

/** `x` [N, in] through the weight `name` ([out, in]): `x W^T`, plus LoRA's `scale (x A^T) B^T` when adapted. */
const through = (w: WeightOf, name: string, x: tf.Tensor2D): tf.Tensor2D => {
  const adapter = w.adapter?.(name)
  if (adapter === undefined) return tf.matMul(x, w(name) as tf.Tensor2D, false, true)
  const low = tf.matMul(tf.matMul(x, adapter.a, false, true), adapter.b, false, true)
  return tf.add(tf.matMul(x, adapter.base, false, true), tf.mul(low, adapter.scale))
}

/** The norm's weight (and LayerNorm bias) on normalised rows `a` [rows, width], into a new array. */
const applyNorm = (a: Float32Array, rows: number, norm: { readonly weight: Float32Array; readonly bias: Float32Array | undefined }): Float32Array => {
  const { weight, bias } = norm
  const width = weight.length
  const out = new Float32Array(a.length)
  for (let r = 0; r < rows; r++) for (let j = 0; j < width; j++) out[r * width + j] = a[r * width + j]! * weight[j]! + (bias === undefined ? 0 : bias[j]!)
  return out
}

/** Spec of one {@link Product}: the norm applied to its input, its weights (their outputs side by side), its bias. */
interface Spec {
  readonly norm: string | undefined
  readonly weights: ReadonlyArray<string>
  readonly bias: Float32Array | undefined
  /** Multiplies the first `scaled.width` output columns (bias included) by `scaled.factor`. */
  readonly scaled?: { readonly width: number; readonly factor: number }
}

const productOf = (config: ModelConfig, w: WeightOf, spec: Spec): Product => {
  const norm = spec.norm === undefined ? undefined : hostNorm(config, w, spec.norm)
  return (a, rows) => {
    const input = norm === undefined ? a : applyNorm(a, rows, norm)
    const out = addBias(
      product(input, rows, (x) =>
        spec.weights.length === 1
          ? through(w, spec.weights[0]!, x)
          : tf.concat(
              spec.weights.map((name) => through(w, name, x)),
              1
            )
      ),
      rows,
      spec.bias
    )
    if (spec.scaled !== undefined) {
      const { width, factor } = spec.scaled
      const stride = out.length / rows
      for (let r = 0; r < rows; r++) for (let j = r * stride; j < r * stride + width; j++) out[j] = out[j]! * factor
    }
    return out
  }
}

/** The host copy of q|k|v's biases (undefined without `qkvBias`). */
const qkvBias = (config: ModelConfig, w: WeightOf, a: string): Float32Array | undefined => {
  if (!config.qkvBias) return undefined
  const parts = ['q_proj', 'k_proj', 'v_proj'].map((p) => host(w(`${a}.${p}.bias`))!)
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

const layerWeights = (config: ModelConfig, w: WeightOf, i: number): LayerWeights => {
  const norms = blockNorms(config, i)
  const a = `${layerPrefix(i)}.self_attn`
  const m = `${layerPrefix(i)}.mlp`
  const qk = { width: config.heads * headDim(config), factor: queryScale(config) }
  return {
    qkv: productOf(config, w, {
      norm: norms.preAttn,
      weights: [`${a}.q_proj.weight`, `${a}.k_proj.weight`, `${a}.v_proj.weight`],
      bias: qkvBias(config, w, a),
      // with a query norm, the scale follows the norm (decode.ts)
      ...(qkNorms(config, i) === undefined ? { scaled: qk } : {})
    }),
    qkvNormed: norms.preAttn !== undefined,
    upNormed: norms.preMlp !== undefined,
    o: productOf(config, w, { norm: undefined, weights: [`${a}.o_proj.weight`], bias: undefined }),
    up: productOf(config, w, {
      norm: norms.preMlp,
      weights: config.activation === 'gelu' ? [`${m}.up_proj.weight`] : [`${m}.gate_proj.weight`, `${m}.up_proj.weight`],
      bias: undefined
    }),
    down: productOf(config, w, { norm: undefined, weights: [`${m}.down_proj.weight`], bias: undefined }),
    mlp: mlpOf(config, w, i)
  }
}

/**
 * Layer `i`'s MLP as one call (`LayerWeights.mlp`): the pre-MLP norm's weight on the host, then
 * the training pass's own `mlp` (gate|up, activation, down) on the backend, so that the [rows, 2 x
 * ffn] products and the activation never come to the host (in a prefill of 1,024 rows at
 * Qwen3-0.6B's widths, the host's SwiGLU took a third of the time).
 */
const mlpOf = (config: ModelConfig, w: WeightOf, i: number): Product => {
  const name = blockNorms(config, i).preMlp
  const norm = name === undefined ? undefined : hostNorm(config, w, name)
  return (a, rows) => product(norm === undefined ? a : applyNorm(a, rows, norm), rows, (x) => mlp(config, w, i, x))
}

/** The weights of `w` in the `shared` layout; `dispose` frees nothing on the backend (the variables are the policy's). */
export const decodeShared = (config: ModelConfig, w: WeightOf): Prepared => {
  const layers = Array.from({ length: config.layers }, (_, i) => layerWeights(config, w, i))
  const headName = config.tiedEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight'
  return {
    config,
    embed: w('model.embed_tokens.weight') as tf.Tensor2D,
    positions: config.positional === 'learned' ? (w('model.embed_positions.weight') as tf.Tensor2D) : undefined,
    previous: config.prevTokenEmbedding === true ? (w(prevTokenWeight) as tf.Tensor2D) : undefined,
    layers,
    canon: hostCanon(config, w),
    norms: layers.map((_, i) => hostNorms(config, w, i)),
    head: productOf(config, w, { norm: 'model.norm', weights: [headName], bias: undefined }),
    dispose: () => undefined
  }
}
