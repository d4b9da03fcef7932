/**
 * The decoder-only transformer as functions of named weights: parameter specs (Hugging Face
 * names and shapes) and the full-sequence forward pass used by training and scoring.
 */
import * as tf from '@tensorflow/tfjs'
import { canonSpan, headDim, isSliding, queryScale, type ModelConfig } from '../ModelConfig.js'
import { causalAttention, causalAttentionByPair, maskedAttention } from './attention.js'
import { blockNorms, canonWeights, layerPrefix, prevTokenWeight, qkNorms } from './layout.js'
import { embed, gelu, layerNorm, linear, repeatKv, rmsNorm, rope, swiglu } from './ops.js'
import { layerRope, tableOf } from './rope.js'

/** A weight's LoRA adapter: `W + scale * B A` is the adapted weight. */
export interface Adapter {
  readonly base: tf.Tensor2D
  /** [rank, in] and [out, rank]. */
  readonly a: tf.Tensor2D
  readonly b: tf.Tensor2D
  readonly scale: number
}

/**
 * A weight by its Hugging Face name (LoRA already merged). `adapter` gives an adapted weight's
 * parts, so that a product can run `x W^T + scale (x A^T) B^T` without making `W + scale B A`.
 */
export type WeightOf = ((name: string) => tf.Tensor) & { readonly adapter?: (name: string) => Adapter | undefined }

/**
 * `x` [N, in] through the weight `name` ([out, in]): with an adapter, as `x W^T + scale (x
 * A^T) B^T`: no [out, in] temporary is made, and the backward pass makes no [out, in] gradient
 * (the adapted weights' share of the memory and of the backward FLOPs of the merged form).
 */
export const project = (w: WeightOf, name: string, x: tf.Tensor2D): tf.Tensor2D => {
  const adapter = w.adapter?.(name)
  if (adapter === undefined) return linear(x, w(name) as tf.Tensor2D)
  return loraSum(linear(x, adapter.base), linear(linear(x, adapter.a), adapter.b), adapter.scale)
}

/**
 * `base + scale * low` for two [N, out] products, as one op that keeps nothing for the backward
 * pass: its gradients are `dy` and `scale dy`. As `tf.add(base, tf.mul(low, scale))` the two ops
 * would keep `base`, `scale * low` and `low` (tfjs's add and mul keep both inputs), three [N, out]
 * tensors per adapted weight that no gradient reads: at Qwen3-0.6B's widths 2.1 GB for 2 x 256
 * tokens. Same values and gradients.
 */
const loraSum = (base: tf.Tensor2D, low: tf.Tensor2D, scale: number): tf.Tensor2D =>
  (
    tf.customGrad((...args: Array<tf.Tensor | tf.GradSaveFunc>) => ({
      value: tf.add(args[0] as tf.Tensor, tf.mul(args[1] as tf.Tensor, scale)),
      gradFunc: (dy: tf.Tensor) => [tf.clone(dy), tf.mul(dy, scale)]
    })) as unknown as (base: tf.Tensor2D, low: tf.Tensor2D) => tf.Tensor2D
  )(base, low)

export { blockNorms, canonWeights, layerPrefix, parameterSpecs, prevTokenWeight, qkNorms, type Init, type ParameterSpec } from './layout.js'

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

/** Applies the configured norm `name` (`.weight`, `.bias`) to `x` (`1 + w` with `normOffset`). */
export const normOf = (config: ModelConfig, w: WeightOf, name: string, x: tf.Tensor): tf.Tensor => {
  if (config.norm === 'layernorm') return layerNorm(x, w(`${name}.weight`), w(`${name}.bias`), config.normEps)
  const weight = w(`${name}.weight`)
  return rmsNorm(x, config.normOffset === true ? tf.add(weight, 1) : weight, config.normEps)
}

/**
 * The q, k, v projections of layer `i` on `h` [N, d]; q carries the attention scale. Without
 * `qkNorm` the scale is folded into q's weight (into q itself for an adapted weight); with it
 * (a norm would undo that) it multiplies q after its norm. Three products rather than one fused
 * product and a split: on wasm a split copies its whole input once per output.
 */
export const projectQkv = (config: ModelConfig, w: WeightOf, i: number, h: tf.Tensor2D): readonly [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D] => {
  const p = `${layerPrefix(i)}.self_attn`
  const scale = queryScale(config)
  const one = (name: string, factor: number): tf.Tensor2D => {
    const weightName = `${p}.${name}.weight`
    let out: tf.Tensor2D
    if (w.adapter?.(weightName) !== undefined) out = factor === 1 ? project(w, weightName, h) : tf.mul(project(w, weightName, h), factor)
    else out = linear(h, (factor === 1 ? w(weightName) : tf.mul(w(weightName), factor)) as tf.Tensor2D)
    if (config.qkvBias) {
      const bias = w(`${p}.${name}.bias`)
      out = tf.add(out, factor === 1 ? bias : tf.mul(bias, factor))
    }
    return out
  }
  const qk = qkNorms(config, i)
  if (qk === undefined) return [one('q_proj', scale), one('k_proj', 1), one('v_proj', 1)]
  const normed = (x: tf.Tensor2D, name: string, width: number): tf.Tensor2D =>
    tf.reshape(normOf(config, w, name, tf.reshape(x, [-1, width])), x.shape) as tf.Tensor2D
  const q = normed(one('q_proj', 1), qk.q, qk.qWidth)
  return [tf.mul(q, scale), normed(one('k_proj', 1), qk.k, qk.kWidth), one('v_proj', 1)]
}

/** The MLP of layer `i` on `h` [N, d] (separate gate and up products: no split). */
export const mlp = (config: ModelConfig, w: WeightOf, i: number, h: tf.Tensor2D): tf.Tensor2D => {
  const p = `${layerPrefix(i)}.mlp`
  const up = project(w, `${p}.up_proj.weight`, h)
  const gate = (): tf.Tensor2D => project(w, `${p}.gate_proj.weight`, h)
  const act = config.activation === 'gelu' ? gelu(up) : config.activation === 'geglu' ? tf.mul(gelu(gate()), up) : swiglu(gate(), up)
  return project(w, `${p}.down_proj.weight`, act as tf.Tensor2D)
}

/** The input rows [B*T, d]: token embeddings, scaled, plus learned positions and previous tokens. */
const embedInputs = (config: ModelConfig, w: WeightOf, ids: tf.Tensor2D): tf.Tensor2D => {
  const [B, T] = ids.shape
  const d = config.dModel
  let x = embed(w('model.embed_tokens.weight') as tf.Tensor2D, tf.reshape(ids, [-1]) as tf.Tensor1D)
  if (config.embedScale !== undefined) x = tf.mul(x, config.embedScale)
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
  return x
}

/** Layer `i`'s attention on the normed rows `h` [B*T, d]: [B*T, d] after o_proj. */
const attentionBlock = (config: ModelConfig, w: WeightOf, i: number, h: tf.Tensor2D, B: number, T: number): tf.Tensor2D => {
  const hd = headDim(config)
  const H = config.heads
  const spec = layerRope(config, i)
  const table = spec === undefined ? undefined : tableOf(spec, config.maxLen)
  const cos = table === undefined ? undefined : tf.tensor3d(table.cos.subarray(0, T * hd), [T, 1, hd])
  const sin = table === undefined ? undefined : tf.tensor3d(table.sin.subarray(0, T * hd), [T, 1, hd])
  const heads = (x2: tf.Tensor2D, n: number, rotate: boolean): tf.Tensor3D => {
    let x4: tf.Tensor = tf.reshape(x2, [B, T, n, hd])
    if (rotate && cos !== undefined && sin !== undefined) x4 = rope(x4, cos, sin, table!.rotaryDim)
    return tf.reshape(repeatKv(tf.transpose(x4, [0, 2, 1, 3]) as tf.Tensor4D, H / n), [B * H, T, hd]) as tf.Tensor3D
  }
  const [q, k, v] = projectQkv(config, w, i, h)
  const window = isSliding(config, i) && config.slidingWindow! < T ? config.slidingWindow : undefined
  const plain = tf.getBackend() === 'wasm' ? causalAttentionByPair : causalAttention
  const attend = (qh: tf.Tensor3D, kh: tf.Tensor3D, vh: tf.Tensor3D): tf.Tensor3D =>
    window === undefined && config.attnSoftcap === undefined ? plain(qh, kh, vh) : maskedAttention(qh, kh, vh, window, config.attnSoftcap)
  const out = attend(heads(q, H, true), heads(k, config.kvHeads, true), heads(v, config.kvHeads, false))
  const attended = tf.reshape(tf.transpose(tf.reshape(out, [B, H, T, hd]), [0, 2, 1, 3]), [B * T, H * hd]) as tf.Tensor2D
  return project(w, `${layerPrefix(i)}.self_attn.o_proj.weight`, attended)
}

/**
 * Layer `i` on the residual rows `x` [B*T, d]: canon mixing, attention, MLP, with the family's
 * norms around each.
 */
export const block = (config: ModelConfig, w: WeightOf, i: number, x: tf.Tensor2D, B: number, T: number): tf.Tensor2D => {
  const mixed = (x2: tf.Tensor2D, name: string): tf.Tensor2D => (canonSpan(config) > 0 ? canonMix(x2, w(name) as tf.Tensor2D, B, T) : x2)
  const normed = (name: string | undefined, x2: tf.Tensor2D): tf.Tensor2D => (name === undefined ? x2 : (normOf(config, w, name, x2) as tf.Tensor2D))
  const norms = blockNorms(config, i)
  const h = normed(norms.preAttn, mixed(x, canonWeights(i).attn))
  const y = tf.add(x, normed(norms.postAttn, attentionBlock(config, w, i, h, B, T))) as tf.Tensor2D
  const h2 = normed(norms.preMlp, mixed(y, canonWeights(i).mlp))
  return tf.add(y, normed(norms.postMlp, mlp(config, w, i, h2))) as tf.Tensor2D
}

/** How the trunk runs layer `i` on `x` [B*T, d] (default: {@link block}; `recompute.ts` recomputes it in the backward pass). */
export type Block = (i: number, x: tf.Tensor2D, B: number, T: number) => tf.Tensor2D

/**
 * The trunk on a right-padded batch: hidden states after the final norm.
 *
 * @param ids int32 [B, T]
 * @returns [B*T, dModel]
 */
export const trunk = (config: ModelConfig, w: WeightOf, ids: tf.Tensor2D, run?: Block): tf.Tensor2D => {
  const [B, T] = ids.shape
  if (T > config.maxLen) throw new Error(`sequence of ${T} tokens is longer than maxLen ${config.maxLen}`)
  let x = embedInputs(config, w, ids)
  for (let i = 0; i < config.layers; i++) x = run === undefined ? block(config, w, i, x, B, T) : run(i, x, B, T)
  return normOf(config, w, 'model.norm', x) as tf.Tensor2D
}

/** The output head's weight [vocab, dModel] (the embedding table when tied). */
export const headWeight = (config: ModelConfig, w: WeightOf): tf.Tensor2D =>
  w(config.tiedEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight') as tf.Tensor2D

/** Logits [N, vocab] of hidden states [N, dModel] (soft-capped with `logitSoftcap`). */
export const logits = (config: ModelConfig, w: WeightOf, hidden: tf.Tensor2D): tf.Tensor2D => {
  const z = linear(hidden, headWeight(config, w))
  const cap = config.logitSoftcap
  return cap === undefined ? z : (tf.mul(tf.tanh(tf.div(z, cap)), cap) as tf.Tensor2D)
}
