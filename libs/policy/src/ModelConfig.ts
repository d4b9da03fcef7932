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
 * The MLP's activation: `swiglu` (`down(silu(gate x) * up x)`), `geglu` (the same with GELU's
 * tanh approximation: Gemma's `gelu_pytorch_tanh`), `gelu` (`down(gelu(up x))`, GPT-2).
 *
 * @category codecs
 * @since 0.6.0
 */
export const Activation = t.keyof({ swiglu: null, gelu: null, geglu: null })
/** @category models @since 0.6.0 */
export type Activation = t.TypeOf<typeof Activation>

/**
 * A scaling of the RoPE frequencies, as Hugging Face's `rope_type`s: `linear` divides every
 * frequency by `factor` (position interpolation); `llama3` divides the low frequencies by
 * `factor`, keeps the high ones and blends between (Llama 3.1); `yarn` blends interpolated and
 * original frequencies by a ramp between the dimensions that turn `betaFast` and `betaSlow`
 * times over `originalMaxPositions`, and scales cos and sin by `attentionFactor` (Peng et al.,
 * 2023, https://arxiv.org/abs/2309.00071).
 *
 * @category codecs
 * @since 0.6.0
 */
export const RopeScaling = t.union([
  t.type({ type: t.literal('linear'), factor: t.number }),
  t.type({ type: t.literal('llama3'), factor: t.number, lowFreqFactor: t.number, highFreqFactor: t.number, originalMaxPositions: t.number }),
  t.type({
    type: t.literal('yarn'),
    factor: t.number,
    originalMaxPositions: t.number,
    attentionFactor: t.number,
    betaFast: t.number,
    betaSlow: t.number,
    truncate: t.boolean
  })
])
/** @category models @since 0.6.0 */
export type RopeScaling = t.TypeOf<typeof RopeScaling>

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
 * The options below (all optional: absent is the Llama layout) describe the published families
 * that `HuggingFace.load` reads (see `Families`): each is what one of them changes.
 *
 * - `headDim`: head width when not `dModel / heads` (Qwen3, Gemma);
 * - `qkNorm`: an RMSNorm of the queries and keys after their projection, `head` (weights
 *   [headDim], per head: Qwen3, Gemma 3) or `full` (weights over the whole projection: OLMo 2);
 * - `normOffset`: RMSNorms scale by `1 + w` (Gemma);
 * - `blockNorms`: `pre` (Llama: a norm before attention and before the MLP), `sandwich` (Gemma:
 *   a norm before and after each), `post` (OLMo 2: after each only);
 * - `embedScale`: the input embeddings are multiplied by it (Gemma: sqrt(dModel));
 * - `queryScale`: the attention scale instead of 1/sqrt(headDim) (Gemma's
 *   `query_pre_attn_scalar ** -0.5`);
 * - `attnSoftcap`, `logitSoftcap`: `c * tanh(x / c)` on the attention scores and on the final
 *   logits (Gemma 2);
 * - `slidingWindow`: a query sees the last `slidingWindow` positions (itself included) in the
 *   layers that `slidingLayers` marks (all layers when absent: Mistral, Phi-3);
 * - `rope`: a scaling of the RoPE frequencies (`linear`, `llama3`, `yarn`);
 * - `localRopeTheta`: the RoPE base of sliding layers, unscaled (Gemma 3);
 * - `ropeFraction`: the share of each head that RoPE rotates (Phi-3's `partial_rotary_factor`);
 * - `ropeLayers`: false marks a layer without positions (NoPE: SmolLM3);
 * - `family`: the Hugging Face `model_type` the model was read from (export writes it back).
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
    activation: Activation,
    tiedEmbeddings: t.boolean,
    ropeTheta: t.number,
    normEps: t.number,
    qkvBias: t.boolean
  }),
  t.partial({
    prevTokenEmbedding: t.boolean,
    canonSpan: t.number,
    headDim: t.number,
    qkNorm: t.keyof({ head: null, full: null }),
    normOffset: t.boolean,
    blockNorms: t.keyof({ pre: null, sandwich: null, post: null }),
    embedScale: t.number,
    queryScale: t.number,
    attnSoftcap: t.number,
    logitSoftcap: t.number,
    slidingWindow: t.number,
    slidingLayers: t.readonlyArray(t.boolean),
    rope: RopeScaling,
    localRopeTheta: t.number,
    ropeFraction: t.number,
    ropeLayers: t.readonlyArray(t.boolean),
    family: t.string
  })
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
export const headDim = (config: ModelConfig): number => config.headDim ?? config.dModel / config.heads

/**
 * Whether layer `i` attends through the sliding window (`slidingWindow` and `slidingLayers`).
 *
 * @category destructors
 * @since 0.6.0
 */
export const isSliding = (config: ModelConfig, i: number): boolean =>
  config.slidingWindow !== undefined && (config.slidingLayers === undefined || config.slidingLayers[i] === true)

/**
 * The attention scale multiplied into the queries: `queryScale`, else 1/sqrt(headDim).
 *
 * @category destructors
 * @since 0.6.0
 */
export const queryScale = (config: ModelConfig): number => config.queryScale ?? 1 / Math.sqrt(headDim(config))

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
  if (config.headDim === undefined && config.dModel % config.heads !== 0)
    throw new Error(`ModelConfig: dModel ${config.dModel} is not divisible by heads ${config.heads}`)
  if (!Number.isInteger(headDim(config)) || headDim(config) <= 0) throw new Error(`ModelConfig.headDim must be a positive integer, got ${headDim(config)}`)
  for (const key of ['slidingLayers', 'ropeLayers'] as const) {
    const flags = config[key]
    if (flags !== undefined && flags.length !== config.layers) throw new Error(`ModelConfig.${key} has ${flags.length} entries for ${config.layers} layers`)
  }
  if (config.slidingWindow !== undefined && !(Number.isInteger(config.slidingWindow) && config.slidingWindow > 0))
    throw new Error(`ModelConfig.slidingWindow must be a positive integer, got ${config.slidingWindow}`)
  const fraction = config.ropeFraction ?? 1
  if (!(fraction > 0 && fraction <= 1) || (headDim(config) * fraction) % 2 !== 0)
    throw new Error(`ModelConfig.ropeFraction ${fraction} must rotate an even part of the head width ${headDim(config)}`)
  if (config.norm === 'layernorm' && (config.qkNorm !== undefined || (config.blockNorms ?? 'pre') !== 'pre' || config.normOffset === true))
    throw new Error('ModelConfig: qkNorm, normOffset and sandwich or post blockNorms need norm rmsnorm')
  if (config.positional === 'learned' && (config.ropeLayers !== undefined || config.rope !== undefined))
    throw new Error('ModelConfig: ropeLayers and rope need positional rope')
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
  const q = config.heads * headDim(config)
  const normParams = config.norm === 'layernorm' ? 2 * d : d
  const attention = d * q * 2 + 2 * d * kv + (config.qkvBias ? q + 2 * kv : 0)
  const qkNorm = config.qkNorm === 'head' ? 2 * headDim(config) : config.qkNorm === 'full' ? q + kv : 0
  const mlp = (config.activation === 'gelu' ? 2 : 3) * d * ffn
  const blockNorms = config.blockNorms === 'sandwich' ? 4 : 2
  const perLayer = attention + qkNorm + mlp + blockNorms * normParams + 2 * canonSpan(config) * d
  const embeddings =
    vocab * d * (config.tiedEmbeddings ? 1 : 2) +
    (config.positional === 'learned' ? config.maxLen * d : 0) +
    (config.prevTokenEmbedding === true ? vocab * d : 0)
  return layers * perLayer + embeddings + normParams
}
