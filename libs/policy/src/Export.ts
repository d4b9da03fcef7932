/**
 * A policy written back as a Hugging Face folder (`config.json`, `model.safetensors`,
 * `tokenizer.json`, `tokenizer_config.json` with its chat template): LoRA adapters merged into
 * the weights (`W + alpha / rank * B A`), the family's own weight names (Phi-3's fused
 * projections) and `config.json` fields, so that `transformers`, and through it vLLM,
 * llama.cpp's converter or Ollama, load what mtrl trained. `mtrl export` wires it.
 *
 * @since 0.6.0
 */
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as Families from './Families.js'
import type { Family } from './Family.js'
import type * as HfTokenizer from './HfTokenizer.js'
import { writeDirAtomic } from './internal/files.js'
import { configJson, hfConfigOf } from './internal/families/write.js'
import { parameterSpecs } from './internal/layout.js'
import { canonSpan, type ModelConfig } from './ModelConfig.js'
import * as Policy from './Policy.js'
import { invalidConfig, type PolicyError } from './PolicyError.js'
import * as Safetensors from './Safetensors.js'

/** Why a configuration has no Hugging Face layout, if it has none. */
const unrepresentable = (config: ModelConfig): string | undefined => {
  if (config.positional !== 'rope') return 'learned positions (no Hugging Face family of mtrl has them)'
  if (config.norm !== 'rmsnorm') return 'LayerNorm (no Hugging Face family of mtrl has it)'
  if (config.activation === 'gelu') return 'a GELU MLP without a gate'
  if (canonSpan(config) > 0) return 'canon layers (decision 0007)'
  if (config.prevTokenEmbedding === true) return 'a previous-token embedding (decision 0006)'
  return undefined
}

/**
 * The family a policy is written as: the one it was read from (`ModelConfig.family`), else
 * Qwen2 for q/k/v biases and Llama otherwise (a model trained from scratch with RoPE, RMSNorm
 * and SwiGLU); `Left` says why there is none.
 *
 * @category destructors
 * @since 0.6.0
 */
export const familyFor = (config: ModelConfig): E.Either<string, Family> => {
  const why = unrepresentable(config)
  if (why !== undefined) return E.left(`the model has ${why}`)
  const type = config.family ?? (config.qkvBias ? 'qwen2' : 'llama')
  const family = Families.all.find((f) => f.modelTypes.includes(type))
  return family === undefined ? E.left(`model_type ${type} has no family to write`) : E.right(family)
}

/** Host copies of the base weights, adapters merged. */
const mergedWeights = (policy: Policy.Policy): Map<string, Policy.HostTensor> => {
  const w = Policy.weightOf(policy)
  const out = new Map<string, Policy.HostTensor>()
  for (const spec of parameterSpecs(policy.config))
    tf.tidy(() => {
      out.set(spec.name, { shape: spec.shape, data: new Float32Array(w(spec.name).dataSync()) })
    })
  return out
}

/**
 * The files of the Hugging Face folder of `policy` (which must carry a Hugging Face tokenizer),
 * or why it cannot be written.
 *
 * @category destructors
 * @since 0.6.0
 */
export const files = (policy: Policy.Policy): E.Either<string, ReadonlyMap<string, Uint8Array | string>> => {
  const tokenizer = policy.tokenizer as Partial<HfTokenizer.HfTokenizer> | undefined
  if (tokenizer?._tag !== 'HfTokenizer') return E.left("the model's tokenizer is not a Hugging Face one (no tokenizer.json to write)")
  return E.map((family: Family) => {
    const { family: _, ...config } = policy.config
    const merged = mergedWeights(policy)
    const weights = family.toHf === undefined ? merged : family.toHf(config, merged)
    const { bos, eos, pad } = tokenizer.special!
    const hfConfig = hfConfigOf(config, family.modelTypes[0]!, family.architecture, { bos, eos, pad })
    return new Map<string, Uint8Array | string>([
      ['config.json', configJson(hfConfig)],
      ['model.safetensors', Safetensors.encode(weights as ReadonlyMap<string, Safetensors.Writable>, { format: 'pt' })],
      ['tokenizer.json', JSON.stringify(tokenizer.json)],
      ['tokenizer_config.json', JSON.stringify(tokenizer.config ?? {}, null, 1)]
    ])
  })(familyFor(policy.config))
}

/**
 * Writes `policy` as a Hugging Face folder into `dir` (atomically: a temporary folder, then a
 * rename). Reads every weight once; leaves no tensors behind.
 *
 * @example
 * import { Export, Pretrained } from '@mtrl/policy'
 * const policy = await Pretrained.load('runs/my-run/checkpoints/stage-1/end')()
 * // if (policy._tag === 'Right') await Export.save('exported', policy.right)()
 *
 * @category constructors
 * @since 0.6.0
 */
export const save = (dir: string, policy: Policy.Policy): TE.TaskEither<PolicyError, void> => {
  const written = files(policy)
  return written._tag === 'Left' ? async () => E.left(invalidConfig(dir, `cannot export: ${written.left}`)) : writeDirAtomic(dir, written.right)
}
