/**
 * The architecture of a decoder-only transformer: sizes, positional scheme, norm, activation.
 * One codec covers the small models trained from scratch (learned positions, LayerNorm, GELU,
 * like GPT-2) and the Llama family (RoPE, RMSNorm, SwiGLU, grouped-query attention, Qwen2's
 * q/k/v biases and tied embeddings).
 *
 * @since 0.1.0
 */
import { Numbers } from '@mtrl/core'
import * as t from 'io-ts'

/**
 * A decoder-only transformer configuration. Saved as `config.json` in checkpoints.
 *
 * - `kvHeads` divides `heads` (grouped-query attention when smaller);
 * - `ffn`: hidden width of the MLP (per branch for SwiGLU);
 * - `maxLen`: longest sequence (the learned position table's size);
 * - `ropeTheta`: RoPE base (ignored with learned positions);
 * - `prevTokenEmbedding` (optional, default off): add to each position's input a second
 *   embedding, of the token before it (`model.embed_prev_tokens.weight`; zero at position 0).
 *   The first layer's keys then know their previous token, so copying a name seen earlier (an
 *   induction head, which otherwise needs two layers to compose) is one attention step; a model
 *   trained from scratch leaves its copying plateaus much sooner (docs/decisions/0006). The idea
 *   of RWKV's token shift and of the smeared keys of Olsson et al. (2022), as an embedding.
 * - `canonSpan` (optional, default 0 = off): the input of every attention block and every MLP
 *   block also mixes in, channel by channel, the residual stream of the `canonSpan` positions
 *   before it: `x_t + sum_{k=1..span} c_k * x_{t-k}` (weights
 *   `model.layers.{i}.canon_attn.weight` and `.canon_mlp.weight`, [span, dModel], zero at
 *   start, so the model begins as the plain transformer). A short causal depthwise convolution,
 *   the "Canon layers" of Allen-Zhu (Physics of Language Models, part 4.1, 2025): each position
 *   sees its neighbours' states in every layer, which lets a shallow model chain more lookups
 *   (docs/decisions/0007).
 *
 * @category codecs
 * @since 0.1.0
 */
export const ModelConfig = t.intersection([
  t.type({
    vocab: t.number,
    dModel: t.number,
    layers: t.number,
    heads: t.number,
    kvHeads: t.number,
    ffn: t.number,
    maxLen: t.number,
    positional: t.keyof({ rope: null, learned: null }),
    norm: t.keyof({ rmsnorm: null, layernorm: null }),
    activation: t.keyof({ swiglu: null, gelu: null }),
    tiedEmbeddings: t.boolean,
    ropeTheta: t.number,
    normEps: t.number,
    qkvBias: t.boolean
  }),
  t.partial({ prevTokenEmbedding: t.boolean, canonSpan: t.number })
])
/** @category models @since 0.1.0 */
export type ModelConfig = t.TypeOf<typeof ModelConfig>

/**
 * What a recipe sets of a model's architecture (all optional, over {@link defaultSettings});
 * `vocab` comes from the tokenizer.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Settings = t.partial({
  dModel: Numbers.PositiveInt,
  layers: Numbers.PositiveInt,
  heads: Numbers.PositiveInt,
  ffn: Numbers.PositiveInt,
  maxLen: Numbers.PositiveInt,
  positional: t.keyof({ rope: null, learned: null }),
  norm: t.keyof({ rmsnorm: null, layernorm: null }),
  activation: t.keyof({ swiglu: null, gelu: null }),
  tiedEmbeddings: t.boolean,
  /** Add an embedding of each position's previous token to its input (decision 0006). */
  prevTokenEmbedding: t.boolean,
  /** Previous positions mixed into every block's input (canon layers; 0 = off; decision 0007). */
  canonSpan: Numbers.NonNegativeInt
})
/** @category models @since 0.1.0 */
export type Settings = t.TypeOf<typeof Settings>

/**
 * The small model mtrl trains from scratch when a recipe says no more: d 128, 2 layers, 4
 * heads, MLP width 512, 512 positions, RoPE, RMSNorm, SwiGLU, tied embeddings, no
 * previous-token embedding, no canon layers.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultSettings: Required<Settings> = {
  dModel: 128,
  layers: 2,
  heads: 4,
  ffn: 512,
  maxLen: 512,
  positional: 'rope',
  norm: 'rmsnorm',
  activation: 'swiglu',
  tiedEmbeddings: true,
  prevTokenEmbedding: false,
  canonSpan: 0
}

/**
 * A Llama-style configuration for `vocab` tokens, with defaults for everything else: RoPE,
 * RMSNorm, SwiGLU with `ffn` = 8/3 dModel rounded up to a multiple of 32 (4 dModel for GELU, the
 * same parameter count), untied head, `maxLen` 512.
 *
 * @example
 * import { ModelConfig } from '@mtrl/policy'
 * const config = ModelConfig.make({ vocab: 512, dModel: 128, layers: 2, heads: 4 })
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (sizes: Pick<ModelConfig, 'vocab' | 'dModel' | 'layers' | 'heads'> & Partial<ModelConfig>): ModelConfig =>
  validate({
    kvHeads: sizes.heads,
    ffn: sizes.activation === 'gelu' ? 4 * sizes.dModel : Math.ceil((8 * sizes.dModel) / 3 / 32) * 32,
    maxLen: 512,
    positional: 'rope',
    norm: 'rmsnorm',
    activation: 'swiglu',
    tiedEmbeddings: false,
    ropeTheta: 10000,
    normEps: 1e-5,
    qkvBias: false,
    ...sizes
  })

/**
 * Head width: `dModel / heads`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const headDim = (config: ModelConfig): number => config.dModel / config.heads

/**
 * Previous positions mixed into each block's input (`canonSpan`, 0 when off).
 *
 * @category destructors
 * @since 0.1.0
 */
export const canonSpan = (config: ModelConfig): number => config.canonSpan ?? 0

/**
 * Checks the invariants the codec cannot express; throws on a broken one (a programmer error).
 *
 * @category destructors
 * @since 0.1.0
 */
export const validate = (config: ModelConfig): ModelConfig => {
  const positive = ['vocab', 'dModel', 'layers', 'heads', 'kvHeads', 'ffn', 'maxLen'] as const
  for (const key of positive)
    if (!Number.isInteger(config[key]) || config[key] <= 0) throw new Error(`ModelConfig.${key} must be a positive integer, got ${config[key]}`)
  if (config.dModel % config.heads !== 0) throw new Error(`ModelConfig: dModel ${config.dModel} is not divisible by heads ${config.heads}`)
  if (config.heads % config.kvHeads !== 0) throw new Error(`ModelConfig: heads ${config.heads} is not divisible by kvHeads ${config.kvHeads}`)
  if (config.positional === 'rope' && headDim(config) % 2 !== 0) throw new Error('ModelConfig: RoPE needs an even head width')
  const span = canonSpan(config)
  if (!Number.isInteger(span) || span < 0) throw new Error(`ModelConfig.canonSpan must be a non-negative integer, got ${span}`)
  return config
}

/**
 * Number of parameters of the language model (without value head or LoRA).
 *
 * @category destructors
 * @since 0.1.0
 */
export const parameterCount = (config: ModelConfig): number => {
  const { vocab, dModel: d, ffn, layers } = config
  const kv = config.kvHeads * headDim(config)
  const normParams = config.norm === 'layernorm' ? 2 * d : d
  const attention = d * d * 2 + 2 * d * kv + (config.qkvBias ? d + 2 * kv : 0)
  const mlp = (config.activation === 'swiglu' ? 3 : 2) * d * ffn
  const perLayer = attention + mlp + 2 * normParams + 2 * canonSpan(config) * d
  const embeddings =
    vocab * d * (config.tiedEmbeddings ? 1 : 2) +
    (config.positional === 'learned' ? config.maxLen * d : 0) +
    (config.prevTokenEmbedding === true ? vocab * d : 0)
  return layers * perLayer + embeddings + normParams
}
