/**
 * The decoder-only transformer as functions of named weights: parameter specs (Hugging Face
 * names and shapes) and the full-sequence forward pass used by training and scoring.
 */
import * as tf from '@tensorflow/tfjs'
import { canonSpan, headDim, type ModelConfig } from '../ModelConfig.js'
import { causalAttention, causalAttentionByPair } from './attention.js'
import { embed, gelu, layerNorm, linear, repeatKv, rmsNorm, rope, ropeTable, swiglu } from './ops.js'

/** A weight by its Hugging Face name (LoRA already merged). */
export type WeightOf = (name: string) => tf.Tensor

export type Init = 'normal' | 'ones' | 'zeros'
export interface ParameterSpec {
  readonly name: string
  readonly shape: ReadonlyArray<number>
  readonly init: Init
}

export const layerPrefix = (i: number): string => `model.layers.${i}`

/** The table of `ModelConfig.prevTokenEmbedding`. */
export const prevTokenWeight = 'model.embed_prev_tokens.weight'

/** The canon weights ([span, dModel]) of layer `i` before its attention and its MLP block. */
export const canonWeights = (i: number): { readonly attn: string; readonly mlp: string } => ({
  attn: `${layerPrefix(i)}.canon_attn.weight`,
  mlp: `${layerPrefix(i)}.canon_mlp.weight`
})

/**
 * A block's input with canon mixing (`ModelConfig.canonSpan`): each row of `x` [B*T, d] plus,
 * channel by channel, `weight[k-1]` times the row k positions before it in the same sequence
 * (k = 1..span; nothing before position 0). One pad, then one slice per k.
 */
export const canonMix = (x: tf.Tensor2D, weight: tf.Tensor2D, B: number, T: number): tf.Tensor2D => {
  const [span, d] = weight.shape
  const x3 = tf.reshape(x, [B, T, d])
  const padded = tf.pad(x3, [
    [0, 0],
    [span, 0],
    [0, 0]
  ])
  let out: tf.Tensor = x3
  for (let k = 1; k <= span; k++)
    out = tf.add(out, tf.mul(tf.slice(padded, [0, span - k, 0], [B, T, d]), tf.reshape(tf.slice(weight, [k - 1, 0], [1, d]), [1, 1, d])))
  return tf.reshape(out, [B * T, d])
}

/** Every parameter of the language model, in a stable order. */
export const parameterSpecs = (config: ModelConfig): ReadonlyArray<ParameterSpec> => {
  const d = config.dModel
  const kv = config.kvHeads * headDim(config)
  const specs: ParameterSpec[] = [{ name: 'model.embed_tokens.weight', shape: [config.vocab, d], init: 'normal' }]
  if (config.positional === 'learned') specs.push({ name: 'model.embed_positions.weight', shape: [config.maxLen, d], init: 'normal' })
  if (config.prevTokenEmbedding === true) specs.push({ name: prevTokenWeight, shape: [config.vocab, d], init: 'normal' })
  const norm = (name: string): void => {
    specs.push({ name: `${name}.weight`, shape: [d], init: 'ones' })
    if (config.norm === 'layernorm') specs.push({ name: `${name}.bias`, shape: [d], init: 'zeros' })
  }
  const span = canonSpan(config)
  for (let i = 0; i < config.layers; i++) {
    const p = layerPrefix(i)
    if (span > 0) specs.push({ name: canonWeights(i).attn, shape: [span, d], init: 'zeros' }, { name: canonWeights(i).mlp, shape: [span, d], init: 'zeros' })
    norm(`${p}.input_layernorm`)
    specs.push({ name: `${p}.self_attn.q_proj.weight`, shape: [d, d], init: 'normal' })
    specs.push({ name: `${p}.self_attn.k_proj.weight`, shape: [kv, d], init: 'normal' })
    specs.push({ name: `${p}.self_attn.v_proj.weight`, shape: [kv, d], init: 'normal' })
    if (config.qkvBias) {
      specs.push({ name: `${p}.self_attn.q_proj.bias`, shape: [d], init: 'zeros' })
      specs.push({ name: `${p}.self_attn.k_proj.bias`, shape: [kv], init: 'zeros' })
      specs.push({ name: `${p}.self_attn.v_proj.bias`, shape: [kv], init: 'zeros' })
    }
    specs.push({ name: `${p}.self_attn.o_proj.weight`, shape: [d, d], init: 'normal' })
    norm(`${p}.post_attention_layernorm`)
    if (config.activation === 'swiglu') specs.push({ name: `${p}.mlp.gate_proj.weight`, shape: [config.ffn, d], init: 'normal' })
    specs.push({ name: `${p}.mlp.up_proj.weight`, shape: [config.ffn, d], init: 'normal' })
    specs.push({ name: `${p}.mlp.down_proj.weight`, shape: [d, config.ffn], init: 'normal' })
  }
  norm('model.norm')
  if (!config.tiedEmbeddings) specs.push({ name: 'lm_head.weight', shape: [config.vocab, d], init: 'normal' })
  return specs
}

/** Applies the configured norm `name` (`.weight`, `.bias`) to `x`. */
export const normOf = (config: ModelConfig, w: WeightOf, name: string, x: tf.Tensor): tf.Tensor =>
  config.norm === 'rmsnorm' ? rmsNorm(x, w(`${name}.weight`), config.normEps) : layerNorm(x, w(`${name}.weight`), w(`${name}.bias`), config.normEps)

/**
 * The q, k, v projections of layer `i` on `h` [N, d], the attention scale 1/sqrt(headDim)
 * folded into q. Three products rather than one fused product and a split: on wasm a split
 * copies its whole input once per output.
 */
export const projectQkv = (config: ModelConfig, w: WeightOf, i: number, h: tf.Tensor2D): readonly [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D] => {
  const p = `${layerPrefix(i)}.self_attn`
  const scale = 1 / Math.sqrt(headDim(config))
  const project = (name: string, factor: number): tf.Tensor2D => {
    let weight = w(`${p}.${name}.weight`)
    if (factor !== 1) weight = tf.mul(weight, factor)
    let out = linear(h, weight as tf.Tensor2D)
    if (config.qkvBias) {
      const bias = w(`${p}.${name}.bias`)
      out = tf.add(out, factor === 1 ? bias : tf.mul(bias, factor))
    }
    return out
  }
  return [project('q_proj', scale), project('k_proj', 1), project('v_proj', 1)]
}

/**
 * The fused q|k|v projection of layer `i` (for decoding, where one product beats three), with
 * the attention scale folded into q: weight [qkvWidth, d] and bias [qkvWidth] (or undefined).
 */
export const qkvWeights = (config: ModelConfig, w: WeightOf, i: number): { readonly weight: tf.Tensor2D; readonly bias: tf.Tensor1D | undefined } => {
  const p = `${layerPrefix(i)}.self_attn`
  const scale = 1 / Math.sqrt(headDim(config))
  const weight = tf.concat([tf.mul(w(`${p}.q_proj.weight`), scale), w(`${p}.k_proj.weight`), w(`${p}.v_proj.weight`)], 0) as tf.Tensor2D
  const bias = config.qkvBias ? (tf.concat([tf.mul(w(`${p}.q_proj.bias`), scale), w(`${p}.k_proj.bias`), w(`${p}.v_proj.bias`)], 0) as tf.Tensor1D) : undefined
  return { weight, bias }
}

/** The MLP of layer `i` on `h` [N, d] (separate gate and up products: no split). */
export const mlp = (config: ModelConfig, w: WeightOf, i: number, h: tf.Tensor2D): tf.Tensor2D => {
  const p = `${layerPrefix(i)}.mlp`
  const up = linear(h, w(`${p}.up_proj.weight`) as tf.Tensor2D)
  const act = config.activation === 'gelu' ? gelu(up) : swiglu(linear(h, w(`${p}.gate_proj.weight`) as tf.Tensor2D), up)
  return linear(act as tf.Tensor2D, w(`${p}.down_proj.weight`) as tf.Tensor2D)
}

/**
 * The trunk on a right-padded batch: hidden states after the final norm.
 *
 * @param ids int32 [B, T]
 * @returns [B*T, dModel]
 */
export const trunk = (config: ModelConfig, w: WeightOf, ids: tf.Tensor2D): tf.Tensor2D => {
  const [B, T] = ids.shape
  if (T > config.maxLen) throw new Error(`sequence of ${T} tokens is longer than maxLen ${config.maxLen}`)
  const d = config.dModel
  const hd = headDim(config)
  const H = config.heads
  const Hkv = config.kvHeads
  let x = embed(w('model.embed_tokens.weight') as tf.Tensor2D, tf.reshape(ids, [-1]) as tf.Tensor1D)
  if (config.positional === 'learned') {
    const pos = tf.slice(w('model.embed_positions.weight'), [0, 0], [T, d])
    x = tf.reshape(tf.add(tf.reshape(x, [B, T, d]), pos), [B * T, d]) as tf.Tensor2D
  }
  if (config.prevTokenEmbedding === true && T > 1) {
    // row t gets the embedding of ids[t - 1]; row 0 has no previous token (its gathered row is masked out)
    const previous = tf.concat([tf.zeros([B, 1], 'int32'), tf.slice(ids, [0, 0], [B, T - 1])], 1)
    const notFirst = tf.reshape(tf.tile(tf.concat([tf.zeros([1, 1]), tf.ones([1, T - 1])], 1), [B, 1]), [B * T, 1])
    x = tf.add(x, tf.mul(embed(w(prevTokenWeight) as tf.Tensor2D, tf.reshape(previous, [-1]) as tf.Tensor1D), notFirst)) as tf.Tensor2D
  }
  let cosQ: tf.Tensor | undefined
  let sinQ: tf.Tensor | undefined
  let cosK: tf.Tensor | undefined
  let sinK: tf.Tensor | undefined
  if (config.positional === 'rope') {
    const table = ropeTable(config.maxLen, 1, hd, config.ropeTheta)
    const cos = tf.tensor3d(table.cos.subarray(0, T * hd), [T, 1, hd])
    const sin = tf.tensor3d(table.sin.subarray(0, T * hd), [T, 1, hd])
    cosQ = cosK = cos
    sinQ = sinK = sin
  }
  const heads = (x2: tf.Tensor2D, n: number, cos: tf.Tensor | undefined, sin: tf.Tensor | undefined): tf.Tensor3D => {
    let x4: tf.Tensor = tf.reshape(x2, [B, T, n, hd])
    if (cos !== undefined && sin !== undefined) x4 = rope(x4, cos, sin)
    return tf.reshape(repeatKv(tf.transpose(x4, [0, 2, 1, 3]) as tf.Tensor4D, H / n), [B * H, T, hd]) as tf.Tensor3D
  }
  const attention = tf.getBackend() === 'wasm' ? causalAttentionByPair : causalAttention
  const mixed = (x2: tf.Tensor2D, name: string): tf.Tensor2D => (canonSpan(config) > 0 ? canonMix(x2, w(name) as tf.Tensor2D, B, T) : x2)
  for (let i = 0; i < config.layers; i++) {
    const p = layerPrefix(i)
    const h = normOf(config, w, `${p}.input_layernorm`, mixed(x, canonWeights(i).attn)) as tf.Tensor2D
    const [q, k, v] = projectQkv(config, w, i, h)
    const out = attention(heads(q, H, cosQ, sinQ), heads(k, Hkv, cosK, sinK), heads(v, Hkv, undefined, undefined))
    const attended = tf.reshape(tf.transpose(tf.reshape(out, [B, H, T, hd]), [0, 2, 1, 3]), [B * T, d]) as tf.Tensor2D
    x = tf.add(x, linear(attended, w(`${p}.self_attn.o_proj.weight`) as tf.Tensor2D))
    const h2 = normOf(config, w, `${p}.post_attention_layernorm`, mixed(x, canonWeights(i).mlp)) as tf.Tensor2D
    x = tf.add(x, mlp(config, w, i, h2))
  }
  return normOf(config, w, 'model.norm', x) as tf.Tensor2D
}

/** The output head's weight [vocab, dModel] (the embedding table when tied). */
export const headWeight = (config: ModelConfig, w: WeightOf): tf.Tensor2D =>
  w(config.tiedEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight') as tf.Tensor2D

/** Logits [N, vocab] of hidden states [N, dModel]. */
export const logits = (config: ModelConfig, w: WeightOf, hidden: tf.Tensor2D): tf.Tensor2D => linear(hidden, headWeight(config, w))
