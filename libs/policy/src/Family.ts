/**
 * A model family: how one Hugging Face `model_type` maps onto mtrl's one decoder. A family is
 * data, not a fork of the model code: a reader from `config.json` to a {@link ModelConfig}
 * (the decoder's typed options say what the family changes: norms, RoPE, windows, soft-caps),
 * and, where the family stores its weights otherwise than Llama, the renaming both ways (Phi-3
 * fuses q|k|v and gate|up). The registry of families is `Families`; a new family is one file
 * under `src/families/` plus its fixture.
 *
 * @since 0.6.0
 */
import * as E from 'fp-ts/lib/Either.js'
import type { HostTensor } from './internal/weights.js'
import { validate, type ModelConfig } from './ModelConfig.js'

/**
 * A parsed `config.json`.
 *
 * @category models
 * @since 0.6.0
 */
export type HfConfig = Readonly<Record<string, unknown>>

/**
 * Weights by Hugging Face name.
 *
 * @category models
 * @since 0.6.0
 */
export type Weights = ReadonlyMap<string, HostTensor>

/**
 * One family.
 *
 * @category models
 * @since 0.6.0
 */
export interface Family {
  /** The `model_type`s of `config.json` it reads. */
  readonly modelTypes: ReadonlyArray<string>
  /** The `architectures[0]` it writes back (`...ForCausalLM`). */
  readonly architecture: string
  /** The decoder's configuration, or why this `config.json` is not supported (naming the field). */
  readonly config: (cfg: HfConfig) => E.Either<string, ModelConfig>
  /**
   * The weights in mtrl's (Llama's) names, from the family's (identity when absent). Loading
   * calls it on one tensor at a time (a map of one entry), so that the model is never held
   * whole on the host: a renaming must map each tensor on its own (Phi-3 splits each fused
   * tensor).
   */
  readonly fromHf?: (config: ModelConfig, weights: Weights) => Weights
  /** The inverse of `fromHf`, for export. */
  readonly toHf?: (config: ModelConfig, weights: Weights) => Weights
}

/**
 * `cfg[key]` as a number, or undefined when absent or null; a non-number is an error naming the key.
 *
 * @category destructors
 * @since 0.6.0
 */
export const numberAt = (cfg: HfConfig, key: string): E.Either<string, number | undefined> => {
  const value = cfg[key]
  if (value === undefined || value === null) return E.right(undefined)
  return typeof value === 'number' && Number.isFinite(value) ? E.right(value) : E.left(`${key} must be a number, got ${JSON.stringify(value)}`)
}

/**
 * A configuration checked by `ModelConfig.validate`, its error as a reason.
 *
 * @category constructors
 * @since 0.6.0
 */
export const validated = (config: ModelConfig): E.Either<string, ModelConfig> => {
  try {
    return E.right(validate(config))
  } catch (e) {
    return E.left(e instanceof Error ? e.message : String(e))
  }
}
