/**
 * Readers of the `config.json` fields that most families share (sizes, RoPE and its scalings,
 * sliding windows by `layer_types`, activations), each failing with the field it refuses.
 */
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { numberAt, type HfConfig } from '../../Family.js'
import type { Activation, ModelConfig, RopeScaling } from '../../ModelConfig.js'

type R<A> = E.Either<string, A>

const required = (cfg: HfConfig, key: string): R<number> =>
  pipe(
    numberAt(cfg, key),
    E.chain((n) => (n === undefined ? E.left(`missing ${key}`) : E.right(n)))
  )

/** `numberAt` with a default. */
export const numberOr = (cfg: HfConfig, key: string, fallback: number): R<number> => E.map((n: number | undefined) => n ?? fallback)(numberAt(cfg, key))

const record = (value: unknown): HfConfig | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as HfConfig) : undefined

/**
 * The RoPE parameters of `config.json` (transformers 5's `rope_parameters`, 4's `rope_scaling`
 * and `rope_theta`), for one layer type when keyed by it (Gemma 3).
 */
export const ropeParameters = (cfg: HfConfig, layerType?: string): HfConfig => {
  const params = record(cfg['rope_parameters']) ?? record(cfg['rope_scaling']) ?? {}
  return (layerType === undefined ? undefined : record(params[layerType])) ?? params
}

const mscale = (scale: number, m = 1): number => (scale <= 1 ? 1 : 0.1 * m * Math.log(scale) + 1)

const yarn = (cfg: HfConfig, p: HfConfig): R<RopeScaling> => {
  const original = (p['original_max_position_embeddings'] ?? cfg['original_max_position_embeddings']) as unknown
  if (typeof original !== 'number') return E.left('rope_parameters.original_max_position_embeddings is required by yarn')
  const max = typeof cfg['max_position_embeddings'] === 'number' ? cfg['max_position_embeddings'] : original
  const factor = typeof p['factor'] === 'number' ? p['factor'] : max / original
  const m = p['mscale']
  const mAll = p['mscale_all_dim']
  const attentionFactor =
    typeof p['attention_factor'] === 'number'
      ? p['attention_factor']
      : typeof m === 'number' && typeof mAll === 'number' && m !== 0 && mAll !== 0
        ? mscale(factor, m) / mscale(factor, mAll)
        : mscale(factor)
  const beta = (key: string, fallback: number): number => (typeof p[key] === 'number' && p[key] !== 0 ? (p[key] as number) : fallback)
  return E.right({
    type: 'yarn',
    factor,
    originalMaxPositions: original,
    attentionFactor,
    betaFast: beta('beta_fast', 32),
    betaSlow: beta('beta_slow', 1),
    truncate: p['truncate'] !== false
  })
}

/** The RoPE base and scaling of `params` (see {@link ropeParameters}). */
export const ropeOf = (cfg: HfConfig, params: HfConfig, defaultTheta = 10000): R<{ readonly theta: number; readonly scaling: RopeScaling | undefined }> => {
  const theta = typeof params['rope_theta'] === 'number' ? params['rope_theta'] : typeof cfg['rope_theta'] === 'number' ? cfg['rope_theta'] : defaultTheta
  const type = String(params['rope_type'] ?? params['type'] ?? 'default')
  const factor = (): R<number> => (typeof params['factor'] === 'number' ? E.right(params['factor']) : E.left(`rope_parameters.factor is required by ${type}`))
  const with_ = (scaling: R<RopeScaling | undefined>): R<{ readonly theta: number; readonly scaling: RopeScaling | undefined }> =>
    E.map((s: RopeScaling | undefined) => ({ theta, scaling: s }))(scaling)
  switch (type) {
    case 'default':
      return with_(E.right(undefined))
    case 'linear':
      return with_(E.map((f: number) => ({ type: 'linear' as const, factor: f }))(factor()))
    case 'llama3': {
      const [low, high, original] = ['low_freq_factor', 'high_freq_factor', 'original_max_position_embeddings'].map((k) => params[k])
      if (typeof low !== 'number' || typeof high !== 'number' || typeof original !== 'number')
        return E.left('rope_parameters of llama3 need low_freq_factor, high_freq_factor and original_max_position_embeddings')
      return with_(
        E.map((f: number) => ({ type: 'llama3' as const, factor: f, lowFreqFactor: low, highFreqFactor: high, originalMaxPositions: original }))(factor())
      )
    }
    case 'yarn':
      return with_(yarn(cfg, params))
    default:
      return E.left(`rope_parameters.rope_type ${type}: supported are default, linear, llama3 and yarn`)
  }
}

/** The activation named by `cfg[key]` among `allowed` (Hugging Face name -> mtrl activation). */
export const activationOf = (cfg: HfConfig, key: string, fallback: string, allowed: Readonly<Record<string, Activation>>): R<Activation> => {
  const name = String(cfg[key] ?? fallback)
  const act = allowed[name]
  return act === undefined ? E.left(`${key} ${name}: supported are ${Object.keys(allowed).join(', ')}`) : E.right(act)
}

/**
 * The sliding window and which layers use it: by `layer_types` when present (a
 * `sliding_attention` entry), else by `fallback` (a layer's index -> sliding), else none.
 */
export const slidingOf = (cfg: HfConfig, layers: number, fallback?: (i: number) => boolean): R<Pick<ModelConfig, 'slidingWindow' | 'slidingLayers'>> => {
  const types = cfg['layer_types']
  let sliding: boolean[] | undefined
  if (Array.isArray(types)) {
    if (types.length !== layers) return E.left(`layer_types has ${types.length} entries for ${layers} layers`)
    const unknown = types.find((t) => t !== 'sliding_attention' && t !== 'full_attention')
    if (unknown !== undefined) return E.left(`layer_types entry ${JSON.stringify(unknown)}: supported are full_attention and sliding_attention`)
    sliding = types.map((t) => t === 'sliding_attention')
  } else if (fallback !== undefined) sliding = Array.from({ length: layers }, (_, i) => fallback(i))
  if (sliding === undefined || !sliding.includes(true)) return E.right({})
  const window = cfg['sliding_window']
  if (typeof window !== 'number') return E.left('sliding_window must be a number where layer_types has sliding_attention')
  return E.right(sliding.every(Boolean) ? { slidingWindow: window } : { slidingWindow: window, slidingLayers: sliding })
}

/** Options of {@link llamaLike}: what the family's defaults are. */
export interface LlamaLike {
  readonly tiedByDefault?: boolean
  readonly qkvBias?: boolean
  readonly activationKey?: string
  readonly activationFallback?: string
  readonly activations?: Readonly<Record<string, Activation>>
  readonly defaultTheta?: number
}

/**
 * The Llama layout that every family starts from: sizes, grouped-query attention, head width,
 * RoPE (with its scaling and rotated share), RMSNorm, SwiGLU, tied embeddings, q/k/v biases.
 */
export const llamaLike = (cfg: HfConfig, options: LlamaLike = {}): R<ModelConfig> =>
  pipe(
    E.Do,
    E.bind('dModel', () => required(cfg, 'hidden_size')),
    E.bind('heads', () => required(cfg, 'num_attention_heads')),
    E.bind('layers', () => required(cfg, 'num_hidden_layers')),
    E.bind('vocab', () => required(cfg, 'vocab_size')),
    E.bind('ffn', () => required(cfg, 'intermediate_size')),
    E.bind('kvHeads', ({ heads }) => numberOr(cfg, 'num_key_value_heads', heads)),
    E.bind('headDim', () => numberAt(cfg, 'head_dim')),
    E.bind('maxLen', () => numberOr(cfg, 'max_position_embeddings', 2048)),
    E.bind('normEps', () => numberOr(cfg, 'rms_norm_eps', 1e-6)),
    E.bind('activation', () =>
      activationOf(cfg, options.activationKey ?? 'hidden_act', options.activationFallback ?? 'silu', options.activations ?? { silu: 'swiglu' })
    ),
    E.bind('rope', () => ropeOf(cfg, ropeParameters(cfg), options.defaultTheta)),
    E.bind('ropeFraction', () =>
      numberOr(ropeParameters(cfg), 'partial_rotary_factor', typeof cfg['partial_rotary_factor'] === 'number' ? cfg['partial_rotary_factor'] : 1)
    ),
    E.chain((r) => (cfg['mlp_bias'] === true ? E.left('mlp_bias true is not supported') : E.right(r))),
    E.map(({ rope, headDim, ropeFraction, ...sizes }) => ({
      ...sizes,
      ...(headDim === undefined || headDim * sizes.heads === sizes.dModel ? {} : { headDim }),
      positional: 'rope' as const,
      norm: 'rmsnorm' as const,
      tiedEmbeddings: typeof cfg['tie_word_embeddings'] === 'boolean' ? cfg['tie_word_embeddings'] : options.tiedByDefault === true,
      ropeTheta: rope.theta,
      ...(rope.scaling === undefined ? {} : { rope: rope.scaling }),
      ...(ropeFraction === 1 ? {} : { ropeFraction }),
      qkvBias: options.qkvBias ?? cfg['attention_bias'] === true
    }))
  )
