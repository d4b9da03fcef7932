/**
 * The registry of model families that `HuggingFace.load` reads, keyed by `config.json`'s
 * `model_type` (see {@link Family}): Llama (with `linear`, `llama3` and `yarn` RoPE scaling and
 * tied embeddings), Qwen2, Qwen3, Mistral, Gemma 2, Gemma 3 (text), Phi-3, SmolLM3 and OLMo 2.
 * A new family is one file under `internal/families/` and one line here.
 *
 * @since 0.6.0
 */
import * as E from 'fp-ts/lib/Either.js'
import type { Family, HfConfig } from './Family.js'
import { gemma2, gemma3 } from './internal/families/gemma.js'
import { llama } from './internal/families/llama.js'
import { mistral } from './internal/families/mistral.js'
import { olmo2 } from './internal/families/olmo2.js'
import { phi3 } from './internal/families/phi3.js'
import { qwen2 } from './internal/families/qwen2.js'
import { qwen3 } from './internal/families/qwen3.js'
import { smollm3 } from './internal/families/smollm3.js'
import type { ModelConfig } from './ModelConfig.js'

/**
 * Every family, in the order the docs list them.
 *
 * @category constants
 * @since 0.6.0
 */
export const all: ReadonlyArray<Family> = [llama, qwen2, qwen3, mistral, gemma2, gemma3, phi3, smollm3, olmo2]

/**
 * The `model_type`s read.
 *
 * @category constants
 * @since 0.6.0
 */
export const modelTypes: ReadonlyArray<string> = all.flatMap((f) => f.modelTypes)

/**
 * The architectures read (`config.json`'s `architectures[0]`).
 *
 * @category constants
 * @since 0.6.0
 */
export const architectures: ReadonlyArray<string> = all.map((f) => f.architecture)

const modelTypeOf = (cfg: HfConfig): string | undefined => {
  if (typeof cfg['model_type'] === 'string') return cfg['model_type']
  const arch = Array.isArray(cfg['architectures']) ? String(cfg['architectures'][0]) : undefined
  return all.find((f) => f.architecture === arch)?.modelTypes[0]
}

/**
 * The family of a parsed `config.json` (by `model_type`, else by `architectures[0]`), or why none reads it.
 *
 * @category destructors
 * @since 0.6.0
 */
export const familyOf = (json: unknown): E.Either<string, Family> => {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return E.left('config.json is not an object')
  const cfg = json as HfConfig
  const type = modelTypeOf(cfg)
  const family = all.find((f) => type !== undefined && f.modelTypes.includes(type))
  if (family !== undefined) return E.right(family)
  const named = type ?? (Array.isArray(cfg['architectures']) ? String(cfg['architectures'][0]) : 'none')
  return E.left(`model_type ${named}; supported: ${modelTypes.join(', ')}`)
}

/**
 * The mtrl configuration of a Hugging Face `config.json`, or why it is not supported.
 *
 * @example
 * import { Families } from '@mtrl/policy'
 * const sizes = { hidden_size: 64, num_attention_heads: 4, num_hidden_layers: 2, vocab_size: 300, intermediate_size: 128 }
 * const config = Families.configOf({ model_type: 'qwen3', ...sizes })
 *
 * @category destructors
 * @since 0.6.0
 */
export const configOf = (json: unknown): E.Either<string, ModelConfig> => E.chain((f: Family) => f.config(json as HfConfig))(familyOf(json))
