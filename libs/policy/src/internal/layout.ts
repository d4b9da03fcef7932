/**
 * The decoder's weights by Hugging Face name: which exist for a configuration (parameter specs),
 * and which norm sits where in a layer (Llama's pre-norms, Gemma's sandwich, OLMo 2's post-norms).
 */
import { canonSpan, headDim, type ModelConfig } from '../ModelConfig.js'

/** A weight by its Hugging Face name (LoRA already merged). */
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

/** The norms of layer `i` by place (undefined: none there), as `ModelConfig.blockNorms` lays them out. */
export interface BlockNorms {
  readonly preAttn: string | undefined
  readonly postAttn: string | undefined
  readonly preMlp: string | undefined
  readonly postMlp: string | undefined
}

export const blockNorms = (config: ModelConfig, i: number): BlockNorms => {
  const p = layerPrefix(i)
  switch (config.blockNorms ?? 'pre') {
    case 'pre':
      return { preAttn: `${p}.input_layernorm`, postAttn: undefined, preMlp: `${p}.post_attention_layernorm`, postMlp: undefined }
    case 'sandwich':
      return {
        preAttn: `${p}.input_layernorm`,
        postAttn: `${p}.post_attention_layernorm`,
        preMlp: `${p}.pre_feedforward_layernorm`,
        postMlp: `${p}.post_feedforward_layernorm`
      }
    case 'post':
      return { preAttn: undefined, postAttn: `${p}.post_attention_layernorm`, preMlp: undefined, postMlp: `${p}.post_feedforward_layernorm` }
  }
}

/** Layer `i`'s query and key norms with their widths, or undefined without `qkNorm`. */
export const qkNorms = (
  config: ModelConfig,
  i: number
): { readonly q: string; readonly k: string; readonly qWidth: number; readonly kWidth: number } | undefined => {
  if (config.qkNorm === undefined) return undefined
  const hd = headDim(config)
  const a = `${layerPrefix(i)}.self_attn`
  const full = config.qkNorm === 'full'
  return { q: `${a}.q_norm`, k: `${a}.k_norm`, qWidth: full ? config.heads * hd : hd, kWidth: full ? config.kvHeads * hd : hd }
}

/** Every parameter of the language model, in a stable order. */
export const parameterSpecs = (config: ModelConfig): ReadonlyArray<ParameterSpec> => {
  const d = config.dModel
  const kv = config.kvHeads * headDim(config)
  const q = config.heads * headDim(config)
  const specs: ParameterSpec[] = [{ name: 'model.embed_tokens.weight', shape: [config.vocab, d], init: 'normal' }]
  if (config.positional === 'learned') specs.push({ name: 'model.embed_positions.weight', shape: [config.maxLen, d], init: 'normal' })
  if (config.prevTokenEmbedding === true) specs.push({ name: prevTokenWeight, shape: [config.vocab, d], init: 'normal' })
  // (1 + w) norms start at w = 0
  const norm = (name: string | undefined, width = d): void => {
    if (name === undefined) return
    specs.push({ name: `${name}.weight`, shape: [width], init: config.normOffset === true ? 'zeros' : 'ones' })
    if (config.norm === 'layernorm') specs.push({ name: `${name}.bias`, shape: [width], init: 'zeros' })
  }
  const span = canonSpan(config)
  for (let i = 0; i < config.layers; i++) {
    const p = layerPrefix(i)
    const norms = blockNorms(config, i)
    if (span > 0) specs.push({ name: canonWeights(i).attn, shape: [span, d], init: 'zeros' }, { name: canonWeights(i).mlp, shape: [span, d], init: 'zeros' })
    norm(norms.preAttn)
    specs.push({ name: `${p}.self_attn.q_proj.weight`, shape: [q, d], init: 'normal' })
    specs.push({ name: `${p}.self_attn.k_proj.weight`, shape: [kv, d], init: 'normal' })
    specs.push({ name: `${p}.self_attn.v_proj.weight`, shape: [kv, d], init: 'normal' })
    if (config.qkvBias) {
      specs.push({ name: `${p}.self_attn.q_proj.bias`, shape: [q], init: 'zeros' })
      specs.push({ name: `${p}.self_attn.k_proj.bias`, shape: [kv], init: 'zeros' })
      specs.push({ name: `${p}.self_attn.v_proj.bias`, shape: [kv], init: 'zeros' })
    }
    const qk = qkNorms(config, i)
    if (qk !== undefined) {
      norm(qk.q, qk.qWidth)
      norm(qk.k, qk.kWidth)
    }
    specs.push({ name: `${p}.self_attn.o_proj.weight`, shape: [d, q], init: 'normal' })
    norm(norms.postAttn)
    norm(norms.preMlp)
    if (config.activation !== 'gelu') specs.push({ name: `${p}.mlp.gate_proj.weight`, shape: [config.ffn, d], init: 'normal' })
    specs.push({ name: `${p}.mlp.up_proj.weight`, shape: [config.ffn, d], init: 'normal' })
    specs.push({ name: `${p}.mlp.down_proj.weight`, shape: [d, config.ffn], init: 'normal' })
    norm(norms.postMlp)
  }
  norm('model.norm')
  if (!config.tiedEmbeddings) specs.push({ name: 'lm_head.weight', shape: [config.vocab, d], init: 'normal' })
  return specs
}
