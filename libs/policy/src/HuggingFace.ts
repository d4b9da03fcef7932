/**
 * Loading a local Hugging Face model folder (`config.json`, `model.safetensors` or a sharded
 * `model.safetensors.index.json`, `tokenizer.json`, `tokenizer_config.json`) as a
 * {@link Policy}. Supported: `LlamaForCausalLM` (grouped-query attention, RoPE, RMSNorm,
 * SwiGLU) and `Qwen2ForCausalLM` (adds q/k/v biases, usually tied embeddings). No network.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { join } from 'node:path'
import * as HfTokenizer from './HfTokenizer.js'
import { exists, loadSafetensors, readJson } from './internal/files.js'
import type * as Lora from './Lora.js'
import { validate, type ModelConfig } from './ModelConfig.js'
import * as Policy from './Policy.js'
import { invalidConfig, unsupportedModel, type PolicyError } from './PolicyError.js'
import * as Safetensors from './Safetensors.js'

/**
 * Architectures this loader reads.
 *
 * @category constants
 * @since 0.1.0
 */
export const architectures: ReadonlyArray<string> = ['LlamaForCausalLM', 'Qwen2ForCausalLM']

const num = (cfg: Record<string, unknown>, key: string): number | undefined => (typeof cfg[key] === 'number' ? (cfg[key] as number) : undefined)

/**
 * The mtrl configuration of a Hugging Face `config.json`, or why it is not supported.
 *
 * @category destructors
 * @since 0.1.0
 */
export const configOf = (json: unknown): E.Either<string, ModelConfig> => {
  if (typeof json !== 'object' || json === null) return E.left('config.json is not an object')
  const cfg = json as Record<string, unknown>
  const arch = Array.isArray(cfg['architectures']) ? String(cfg['architectures'][0]) : String(cfg['model_type'])
  if (!architectures.includes(arch)) return E.left(`architecture ${arch}; supported: ${architectures.join(', ')}`)
  const act = cfg['hidden_act'] ?? 'silu'
  if (act !== 'silu') return E.left(`hidden_act ${String(act)}; only silu (SwiGLU) is supported`)
  if (cfg['mlp_bias'] === true) return E.left('mlp_bias is not supported')
  const rope = (cfg['rope_parameters'] ?? cfg['rope_scaling'] ?? {}) as Record<string, unknown>
  const ropeType = rope['rope_type'] ?? rope['type'] ?? 'default'
  if (ropeType !== 'default') return E.left(`rope type ${String(ropeType)}; only default RoPE is supported`)
  if (cfg['use_sliding_window'] === true) return E.left('sliding-window attention is not supported')
  const [d, heads, layers, vocab, ffn] = ['hidden_size', 'num_attention_heads', 'num_hidden_layers', 'vocab_size', 'intermediate_size'].map((k) => num(cfg, k))
  if (d === undefined || heads === undefined || layers === undefined || vocab === undefined || ffn === undefined)
    return E.left('missing one of hidden_size, num_attention_heads, num_hidden_layers, vocab_size, intermediate_size')
  const headDim = num(cfg, 'head_dim')
  if (headDim !== undefined && headDim * heads !== d) return E.left(`head_dim ${headDim} x ${heads} heads differs from hidden_size ${d}`)
  const config: ModelConfig = {
    vocab,
    dModel: d,
    layers,
    heads,
    kvHeads: num(cfg, 'num_key_value_heads') ?? heads,
    ffn,
    maxLen: num(cfg, 'max_position_embeddings') ?? 2048,
    positional: 'rope',
    norm: 'rmsnorm',
    activation: 'swiglu',
    tiedEmbeddings: cfg['tie_word_embeddings'] === true,
    ropeTheta: (typeof rope['rope_theta'] === 'number' ? rope['rope_theta'] : num(cfg, 'rope_theta')) ?? 10000,
    normEps: num(cfg, 'rms_norm_eps') ?? 1e-6,
    qkvBias: arch === 'Qwen2ForCausalLM' ? true : cfg['attention_bias'] === true
  }
  try {
    return E.right(validate(config))
  } catch (e) {
    return E.left(e instanceof Error ? e.message : String(e))
  }
}

const loadWeights =
  (dir: string): TE.TaskEither<PolicyError, Map<string, Policy.HostTensor>> =>
  async () => {
    const index = join(dir, 'model.safetensors.index.json')
    let files = ['model.safetensors']
    if (await exists(index)) {
      const json = await readJson(index)()
      if (json._tag === 'Left') return json
      const map = (json.right as { weight_map?: Record<string, string> }).weight_map
      if (map === undefined) return E.left(invalidConfig(index, 'no weight_map'))
      files = [...new Set(Object.values(map))].sort()
    }
    const out = new Map<string, Policy.HostTensor>()
    for (const file of files) {
      const loaded = await loadSafetensors(join(dir, file))()
      if (loaded._tag === 'Left') return loaded
      for (const [name, entry] of loaded.right.tensors) out.set(name, { shape: entry.shape, data: Safetensors.toFloat32(entry) })
    }
    return E.right(out)
  }

/**
 * Options of {@link load}.
 *
 * @category models
 * @since 0.1.0
 */
export interface LoadOptions {
  readonly lora?: Lora.Options
  /**
   * The longest sequence to use instead of `max_position_embeddings` (RoPE models have no
   * position table, so any length works; a shorter one saves the sampler's cache, a longer one
   * extrapolates).
   */
  readonly maxLen?: number
}

/**
 * Loads a Hugging Face folder. The tokenizer is attached when `tokenizer.json` is present.
 * The caller owns the policy (`dispose`).
 *
 * @example
 * import { HuggingFace } from '@mtrl/policy'
 * const policy = await HuggingFace.load('models/Qwen2-0.5B')()
 *
 * @category constructors
 * @since 0.1.0
 */
export const load =
  (dir: string, options: LoadOptions = {}): TE.TaskEither<PolicyError, Policy.Policy> =>
  async () => {
    const configPath = join(dir, 'config.json')
    const json = await readJson(configPath)()
    if (json._tag === 'Left') return json
    const config = configOf(json.right)
    if (config._tag === 'Left') return E.left(unsupportedModel(configPath, config.left))
    if (options.maxLen !== undefined && !(Number.isInteger(options.maxLen) && options.maxLen > 0))
      return E.left(invalidConfig(configPath, `maxLen must be a positive integer, got ${options.maxLen}`))
    const weights = await loadWeights(dir)()
    if (weights._tag === 'Left') return weights
    let tokenizer: HfTokenizer.HfTokenizer | undefined
    const tokPath = join(dir, 'tokenizer.json')
    if (await exists(tokPath)) {
      const tokJson = await readJson(tokPath)()
      if (tokJson._tag === 'Left') return tokJson
      const cfgPath = join(dir, 'tokenizer_config.json')
      const tokCfg = (await exists(cfgPath)) ? await readJson(cfgPath)() : E.right({})
      if (tokCfg._tag === 'Left') return tokCfg
      try {
        tokenizer = HfTokenizer.fromJson(tokJson.right, tokCfg.right)
      } catch (e) {
        return E.left(invalidConfig(tokPath, e instanceof Error ? e.message : String(e)))
      }
    }
    try {
      const sized = options.maxLen === undefined ? config.right : { ...config.right, maxLen: options.maxLen }
      return E.right(
        Policy.fromHost(sized, weights.right, {
          ...(tokenizer === undefined ? {} : { tokenizer }),
          ...(options.lora === undefined ? {} : { lora: options.lora })
        })
      )
    } catch (e) {
      return E.left(invalidConfig(join(dir, 'model.safetensors'), e instanceof Error ? e.message : String(e)))
    }
  }
