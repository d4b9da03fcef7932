/**
 * Loading a local Hugging Face model folder (`config.json`, `model.safetensors` or a sharded
 * `model.safetensors.index.json`, `tokenizer.json`, `tokenizer_config.json`) as a
 * {@link Policy}: any family of `Families` (Llama, Qwen2, Qwen3, Mistral, Gemma 2 and 3, Phi-3,
 * SmolLM3, OLMo 2), each read into mtrl's one decoder. No network.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { join } from 'node:path'
import type { Family, HfConfig } from './Family.js'
import * as HfTokenizer from './HfTokenizer.js'
import { eachSafetensor, exists, readJson, readText } from './internal/files.js'
import type * as Lora from './Lora.js'
import * as Families from './Families.js'
import type { ModelConfig } from './ModelConfig.js'
import * as Policy from './Policy.js'
import { invalidConfig, unsupportedModel, type PolicyError } from './PolicyError.js'
import * as Safetensors from './Safetensors.js'

/**
 * Architectures this loader reads (see `Families`).
 *
 * @category constants
 * @since 0.1.0
 */
export const architectures: ReadonlyArray<string> = Families.architectures

/**
 * The mtrl configuration of a Hugging Face `config.json`, or why it is not supported (the
 * family's reader, see `Families.configOf`).
 *
 * @category destructors
 * @since 0.1.0
 */
export const configOf = (json: unknown): E.Either<string, ModelConfig> => Families.configOf(json)

/** The safetensors files of `dir`: `model.safetensors`, or the shards its index names. */
const weightFiles =
  (dir: string): TE.TaskEither<PolicyError, ReadonlyArray<string>> =>
  async () => {
    const index = join(dir, 'model.safetensors.index.json')
    if (!(await exists(index))) return E.right(['model.safetensors'])
    const json = await readJson(index)()
    if (json._tag === 'Left') return json
    const map = (json.right as { weight_map?: Record<string, string> }).weight_map
    if (map === undefined) return E.left(invalidConfig(index, 'no weight_map'))
    return E.right([...new Set(Object.values(map))].sort())
  }

/**
 * The weights of `dir` put into `build` tensor by tensor as they are read (renamed by the
 * family's `fromHf`, one tensor at a time): no host copy of the model is held beside the
 * variables. Errors name the file.
 */
const loadWeights =
  (dir: string, family: Family, config: ModelConfig, build: Policy.Builder): TE.TaskEither<PolicyError, void> =>
  async () => {
    const files = await weightFiles(dir)()
    if (files._tag === 'Left') return files
    for (const file of files.right) {
      const path = join(dir, file)
      const put = (name: string, entry: Safetensors.Entry): E.Either<PolicyError, void> => {
        const one = new Map([[name, { shape: entry.shape, data: Safetensors.toFloat32(entry) }]])
        try {
          for (const [n, w] of family.fromHf === undefined ? one : family.fromHf(config, one)) build.put(n, w)
          return E.right(undefined)
        } catch (e) {
          return E.left(invalidConfig(path, e instanceof Error ? e.message : String(e)))
        }
      }
      const read = await eachSafetensor(path, put)()
      if (read._tag === 'Left') return read
    }
    return E.right(undefined)
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

/** The family and configuration of `dir`'s `config.json`. */
const readConfig =
  (dir: string): TE.TaskEither<PolicyError, { readonly family: Family; readonly config: ModelConfig }> =>
  async () => {
    const configPath = join(dir, 'config.json')
    const json = await readJson(configPath)()
    if (json._tag === 'Left') return json
    const read = pipe(
      Families.familyOf(json.right),
      E.chain((family) =>
        E.map((config: ModelConfig) => ({ family, config: { ...config, family: family.modelTypes[0]! } }))(family.config(json.right as HfConfig))
      )
    )
    return E.mapLeft((reason: string) => unsupportedModel(configPath, reason))(read)
  }

/**
 * The tokenizer of `dir` (undefined without `tokenizer.json`), its chat template from
 * `chat_template.jinja` when that file is there (it wins over `tokenizer_config.json`'s
 * `chat_template`, as in transformers), so that serving renders the family's own template.
 */
const loadTokenizer =
  (dir: string): TE.TaskEither<PolicyError, HfTokenizer.HfTokenizer | undefined> =>
  async () => {
    const tokPath = join(dir, 'tokenizer.json')
    if (!(await exists(tokPath))) return E.right(undefined)
    const tokJson = await readJson(tokPath)()
    if (tokJson._tag === 'Left') return tokJson
    const cfgPath = join(dir, 'tokenizer_config.json')
    const tokCfg = (await exists(cfgPath)) ? await readJson(cfgPath)() : E.right({})
    if (tokCfg._tag === 'Left') return tokCfg
    const jinjaPath = join(dir, 'chat_template.jinja')
    const jinja = (await exists(jinjaPath)) ? await readText(jinjaPath)() : E.right(undefined)
    if (jinja._tag === 'Left') return jinja
    const config = jinja.right === undefined ? tokCfg.right : { ...(tokCfg.right as object), chat_template: jinja.right }
    try {
      return E.right(HfTokenizer.fromJson(tokJson.right, config))
    } catch (e) {
      return E.left(invalidConfig(tokPath, e instanceof Error ? e.message : String(e)))
    }
  }

/**
 * Loads a Hugging Face folder of any family of `Families` (`config.json`, `model.safetensors`
 * or a sharded `model.safetensors.index.json`, `tokenizer.json`, the chat template of
 * `tokenizer_config.json` or `chat_template.jinja`). The tokenizer is attached when
 * `tokenizer.json` is present. The caller owns the policy (`dispose`).
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
    const read = await readConfig(dir)()
    if (read._tag === 'Left') return read
    const { family, config } = read.right
    if (options.maxLen !== undefined && !(Number.isInteger(options.maxLen) && options.maxLen > 0))
      return E.left(invalidConfig(join(dir, 'config.json'), `maxLen must be a positive integer, got ${options.maxLen}`))
    const tokenizer = await loadTokenizer(dir)()
    if (tokenizer._tag === 'Left') return tokenizer
    const sized = options.maxLen === undefined ? config : { ...config, maxLen: options.maxLen }
    let build: Policy.Builder
    try {
      build = Policy.builder(sized, {
        ...(tokenizer.right === undefined ? {} : { tokenizer: tokenizer.right }),
        ...(options.lora === undefined ? {} : { lora: options.lora })
      })
    } catch (e) {
      return E.left(invalidConfig(join(dir, 'config.json'), e instanceof Error ? e.message : String(e)))
    }
    const weights = await loadWeights(dir, family, sized, build)()
    if (weights._tag === 'Left') {
      build.abort()
      return weights
    }
    try {
      return E.right(build.finish())
    } catch (e) {
      return E.left(invalidConfig(join(dir, 'model.safetensors'), e instanceof Error ? e.message : String(e)))
    }
  }
