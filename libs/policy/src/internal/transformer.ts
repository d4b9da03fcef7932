/**
 * The decoder-only transformer as functions of named weights: parameter specs (Hugging Face
 * names and shapes) and the full-sequence forward pass used by training and scoring.
 */
import * as tf from '@tensorflow/tfjs'
import { headDim, type ModelConfig } from '../ModelConfig.js'
import { causalMask, embed, gelu, layerNorm, linear, mm, repeatKv, rmsNorm, rope, ropeTable, swiglu } from './ops.js'

/** A weight by its Hugging Face name (LoRA already merged). */
export type WeightOf = (name: string) => tf.Tensor

export type Init = 'normal' | 'ones' | 'zeros'
export interface ParameterSpec {
  readonly name: string
  readonly shape: ReadonlyArray<number>
  readonly init: Init
}

export const layerPrefix = (i: number): string => `model.layers.${i}`

/** Every parameter of the language model, in a stable order. */
export const parameterSpecs = (config: ModelConfig): ReadonlyArray<ParameterSpec> => {
  const d = config.dModel
  const kv = config.kvHeads * headDim(config)
  const specs: ParameterSpec[] = [{ name: 'model.embed_tokens.weight', shape: [config.vocab, d], init: 'normal' }]
  if (config.positional === 'learned') specs.push({ name: 'model.embed_positions.weight', shape: [config.maxLen, d], init: 'normal' })
  const norm = (name: string): void => {
    specs.push({ name: `${name}.weight`, shape: [d], init: 'ones' })
    if (config.norm === 'layernorm') specs.push({ name: `${name}.bias`, shape: [d], init: 'zeros' })
  }
  for (let i = 0; i < config.layers; i++) {
    const p = layerPrefix(i)
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
 * The fused q|k|v projection of layer `i`, with the attention scale 1/sqrt(headDim) folded into
 * q: weight [qkvWidth, d] and bias [qkvWidth] (or undefined).
 */
export const qkvWeights = (config: ModelConfig, w: WeightOf, i: number): { readonly weight: tf.Tensor2D; readonly bias: tf.Tensor1D | undefined } => {
  const p = `${layerPrefix(i)}.self_attn`
  const scale = 1 / Math.sqrt(headDim(config))
  const weight = tf.concat([tf.mul(w(`${p}.q_proj.weight`), scale), w(`${p}.k_proj.weight`), w(`${p}.v_proj.weight`)], 0) as tf.Tensor2D
  const bias = config.qkvBias
    ? (tf.concat([tf.mul(w(`${p}.q_proj.bias`), scale), w(`${p}.k_proj.bias`), w(`${p}.v_proj.bias`)], 0) as tf.Tensor1D)
    : undefined
  return { weight, bias }
}

/** The MLP of layer `i` on `h` [N, d]. `upT`: fused gate|up weight transposed, if precomputed. */
export const mlp = (config: ModelConfig, w: WeightOf, i: number, h: tf.Tensor2D, fusedT?: tf.Tensor2D, downT?: tf.Tensor2D): tf.Tensor2D => {
  const p = `${layerPrefix(i)}.mlp`
  const down = (x: tf.Tensor2D): tf.Tensor2D => (downT === undefined ? linear(x, w(`${p}.down_proj.weight`) as tf.Tensor2D) : mm(x, downT))
  if (config.activation === 'gelu') {
    const up = fusedT === undefined ? linear(h, w(`${p}.up_proj.weight`) as tf.Tensor2D) : mm(h, fusedT)
    return down(gelu(up) as tf.Tensor2D)
  }
  const gu = fusedT === undefined ? mm(h, tf.transpose(tf.concat([w(`${p}.gate_proj.weight`), w(`${p}.up_proj.weight`)], 0))) : mm(h, fusedT)
  const [g, u] = tf.split(gu, 2, 1) as [tf.Tensor2D, tf.Tensor2D]
  return down(swiglu(g, u) as tf.Tensor2D)
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
  let cos: tf.Tensor | undefined
  let sin: tf.Tensor | undefined
  if (config.positional === 'rope') {
    const table = ropeTable(config.maxLen, H + Hkv, hd, config.ropeTheta)
    const width = (H + Hkv) * hd
    cos = tf.tensor3d(table.cos.subarray(0, T * width), [T, H + Hkv, hd])
    sin = tf.tensor3d(table.sin.subarray(0, T * width), [T, H + Hkv, hd])
  }
  const mask = causalMask(T)
  for (let i = 0; i < config.layers; i++) {
    const p = layerPrefix(i)
    const h = normOf(config, w, `${p}.input_layernorm`, x) as tf.Tensor2D
    const { weight, bias } = qkvWeights(config, w, i)
    let qkv = mm(h, tf.transpose(weight))
    if (bias !== undefined) qkv = tf.add(qkv, bias)
    const [qk0, v0] = tf.split(qkv, [(H + Hkv) * hd, Hkv * hd], 1) as [tf.Tensor2D, tf.Tensor2D]
    let qk: tf.Tensor = tf.reshape(qk0, [B, T, H + Hkv, hd])
    if (cos !== undefined && sin !== undefined) qk = rope(qk, cos, sin)
    const [q, k] = tf.split(qk, [H, Hkv], 2) as [tf.Tensor4D, tf.Tensor4D]
    const qT = tf.transpose(q, [0, 2, 1, 3]) // [B, H, T, hd]
    const kT = repeatKv(tf.transpose(k, [0, 2, 3, 1]), H / Hkv) // [B, H, hd, T]
    const v = repeatKv(tf.transpose(tf.reshape(v0, [B, T, Hkv, hd]), [0, 2, 1, 3]), H / Hkv) // [B, H, T, hd]
    const probs = tf.softmax(tf.add(mm(qT, kT), mask))
    const attended = tf.reshape(tf.transpose(mm(probs, v), [0, 2, 1, 3]), [B * T, d]) as tf.Tensor2D
    x = tf.add(x, linear(attended, w(`${p}.self_attn.o_proj.weight`) as tf.Tensor2D))
    const h2 = normOf(config, w, `${p}.post_attention_layernorm`, x) as tf.Tensor2D
    x = tf.add(x, mlp(config, w, i, h2))
  }
  return normOf(config, w, 'model.norm', x) as tf.Tensor2D
}

/** The output head's weight [vocab, dModel] (the embedding table when tied). */
export const headWeight = (config: ModelConfig, w: WeightOf): tf.Tensor2D =>
  w(config.tiedEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight') as tf.Tensor2D

/** Logits [N, vocab] of hidden states [N, dModel]. */
export const logits = (config: ModelConfig, w: WeightOf, hidden: tf.Tensor2D): tf.Tensor2D => linear(hidden, headWeight(config, w))
