/**
 * The `config.json` of a {@link ModelConfig} for a family: the inverse of the readers
 * (`read.ts` and each family's file), writing every field a family reads, explicitly null
 * where the model has none (a missing key would take transformers' default: Gemma 2's
 * soft-caps, Mistral's 4096-position window).
 */
import type { HfConfig } from '../../Family.js'
import { headDim, isSliding, queryScale, type ModelConfig, type RopeScaling } from '../../ModelConfig.js'

const scalingKeys = (s: RopeScaling | undefined): HfConfig => {
  if (s === undefined) return { rope_type: 'default' }
  switch (s.type) {
    case 'linear':
      return { rope_type: 'linear', factor: s.factor }
    case 'llama3':
      return {
        rope_type: 'llama3',
        factor: s.factor,
        low_freq_factor: s.lowFreqFactor,
        high_freq_factor: s.highFreqFactor,
        original_max_position_embeddings: s.originalMaxPositions
      }
    case 'yarn':
      return {
        rope_type: 'yarn',
        factor: s.factor,
        original_max_position_embeddings: s.originalMaxPositions,
        attention_factor: s.attentionFactor,
        beta_fast: s.betaFast,
        beta_slow: s.betaSlow,
        truncate: s.truncate
      }
  }
}

const ropeKeys = (config: ModelConfig): HfConfig => {
  const fraction = config.ropeFraction === undefined ? {} : { partial_rotary_factor: config.ropeFraction }
  const global = { ...scalingKeys(config.rope), rope_theta: config.ropeTheta, ...fraction }
  if (config.localRopeTheta === undefined) return { rope_parameters: global }
  return { rope_parameters: { full_attention: global, sliding_attention: { rope_type: 'default', rope_theta: config.localRopeTheta, ...fraction } } }
}

const gemmaKeys = (config: ModelConfig): HfConfig => ({
  hidden_activation: 'gelu_pytorch_tanh',
  query_pre_attn_scalar: Math.round(1 / queryScale(config) ** 2),
  attn_logit_softcapping: config.attnSoftcap ?? null,
  final_logit_softcapping: config.logitSoftcap ?? null
})

/** The token ids `config.json` names (its defaults are the family's real vocabulary's). */
export interface TokenIds {
  readonly bos: number
  readonly eos: number
  readonly pad: number
}

/** The `config.json` of `config` as `architecture` of `modelType`. */
export const hfConfigOf = (config: ModelConfig, modelType: string, architecture: string, tokens: TokenIds): HfConfig => {
  const layers = Array.from({ length: config.layers }, (_, i) => i)
  const anySliding = layers.some((i) => isSliding(config, i))
  return {
    architectures: [architecture],
    model_type: modelType,
    vocab_size: config.vocab,
    hidden_size: config.dModel,
    intermediate_size: config.ffn,
    num_hidden_layers: config.layers,
    num_attention_heads: config.heads,
    num_key_value_heads: config.kvHeads,
    head_dim: headDim(config),
    max_position_embeddings: config.maxLen,
    rms_norm_eps: config.normEps,
    tie_word_embeddings: config.tiedEmbeddings,
    attention_bias: config.qkvBias,
    hidden_act: config.activation === 'swiglu' ? 'silu' : 'gelu_pytorch_tanh',
    ...ropeKeys(config),
    sliding_window: config.slidingWindow ?? null,
    use_sliding_window: anySliding,
    // per-layer types where some layers slide, or for Gemma (whose default alternates); Mistral and Phi-3 say it with sliding_window alone
    ...(config.slidingLayers !== undefined || config.normOffset === true
      ? { layer_types: layers.map((i) => (isSliding(config, i) ? 'sliding_attention' : 'full_attention')) }
      : {}),
    ...(config.ropeLayers === undefined ? {} : { no_rope_layers: config.ropeLayers.map((r) => (r ? 1 : 0)) }),
    ...(config.normOffset === true ? gemmaKeys(config) : {}),
    bos_token_id: tokens.bos,
    eos_token_id: tokens.eos,
    pad_token_id: tokens.pad,
    dtype: 'float32'
  }
}

/** Fields transformers types as float (its strict config dataclasses refuse `3` for `3.0`). */
const floatKeys = new Set([
  'rms_norm_eps',
  'rope_theta',
  'factor',
  'low_freq_factor',
  'high_freq_factor',
  'attention_factor',
  'beta_fast',
  'beta_slow',
  'partial_rotary_factor',
  'attn_logit_softcapping',
  'final_logit_softcapping'
])

const FLOAT = '__float__'

/** `config` as JSON, the float fields written as floats (`3.0`). */
export const configJson = (config: HfConfig): string =>
  JSON.stringify(config, (key, value: unknown) => (floatKeys.has(key) && typeof value === 'number' ? `${FLOAT}${value}` : value), 2).replace(
    new RegExp(`"${FLOAT}([^"]+)"`, 'g'),
    (_, n: string) => (/^-?\d+$/.test(n) ? `${n}.0` : n)
  )
