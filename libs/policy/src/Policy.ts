/**
 * The policy: a decoder-only transformer language model held as named variables (Hugging Face
 * names, e.g. `model.layers.0.self_attn.q_proj.weight`), its tokenizer, and optional LoRA
 * adapters. Sampling lives in {@link Sampler}, differentiable log-probs in {@link Scoring}.
 *
 * @since 0.1.0
 */
import { Rng } from '@mtrl/core'
import * as tf from '@tensorflow/tfjs'
import * as transformer from './internal/transformer.js'
import { disposeAll, freshScope, initial, nameOf, variableOf, weightOf as mergeWeights, type HostTensor, type NamedVariables } from './internal/weights.js'
import * as Lora from './Lora.js'
import { validate, type ModelConfig } from './ModelConfig.js'
import type { Tokenizer } from './Tokenizer.js'

export type { HostTensor, NamedVariables } from './internal/weights.js'

/**
 * A language model. `variables` holds every weight by Hugging Face name (adapters included);
 * `dispose` frees them all.
 *
 * @category models
 * @since 0.1.0
 */
export interface Policy {
  readonly _tag: 'Policy'
  readonly config: ModelConfig
  readonly tokenizer: Tokenizer | undefined
  readonly lora: Lora.Options | undefined
  readonly variables: NamedVariables
  readonly dispose: () => void
}

/**
 * Options of {@link make} and {@link fromHost}.
 *
 * @category models
 * @since 0.1.0
 */
export interface MakeOptions {
  readonly tokenizer?: Tokenizer
  readonly lora?: Lora.Options
  /** Seed of the LoRA `A` matrices (default: the model seed + 1). */
  readonly loraSeed?: number
}

const assemble = (config: ModelConfig, scope: string, base: Record<string, tf.Variable>, options: MakeOptions, loraSeed: number): Policy => {
  const adapters = options.lora === undefined ? {} : Lora.makeVariables(scope, config, options.lora, (name) => base[name]?.shape, options.loraSeed ?? loraSeed)
  const variables: NamedVariables = { ...base, ...adapters }
  return { _tag: 'Policy', config, tokenizer: options.tokenizer, lora: options.lora, variables, dispose: () => disposeAll(variables) }
}

/**
 * A freshly initialised model: weights Normal(0, 0.02) drawn from core's Rng (the same on
 * every backend), norms one, biases zero.
 *
 * @example
 * import { ModelConfig, Policy } from '@mtrl/policy'
 * const policy = Policy.make(ModelConfig.make({ vocab: 512, dModel: 128, layers: 2, heads: 4 }), 0)
 * policy.dispose()
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (config: ModelConfig, seed: number, options: MakeOptions = {}): Policy => {
  validate(config)
  const rng = Rng.make(seed)
  const scope = freshScope('policy')
  const base: Record<string, tf.Variable> = {}
  for (const spec of transformer.parameterSpecs(config)) base[spec.name] = variableOf(scope, spec.name, initial(spec, rng))
  return assemble(config, scope, base, options, seed + 1)
}

/**
 * Builds a policy from host weights given one at a time: each weight becomes its variable when
 * it is put, so its host copy can be dropped at once (loading never holds the host weights and
 * the variables together). `put` throws on a mis-shaped or repeated weight, `finish` on a
 * missing one; either way the variables made so far are freed (as by `abort`).
 *
 * @category models
 * @since 0.6.0
 */
export interface Builder {
  /** Makes the variable of weight `name` (adapters are kept to load after `finish` makes them; unknown names are ignored). */
  readonly put: (name: string, weight: HostTensor) => void
  readonly finish: () => Policy
  readonly abort: () => void
}

/**
 * A {@link Builder} of a model of `config`.
 *
 * @category constructors
 * @since 0.6.0
 */
export const builder = (config: ModelConfig, options: MakeOptions = {}): Builder => {
  validate(config)
  const scope = freshScope('policy')
  const specs = new Map(transformer.parameterSpecs(config).map((spec) => [spec.name, spec]))
  const made = new Map<string, tf.Variable>()
  const adapters = new Map<string, HostTensor>()
  const abort = (): void => {
    made.forEach((v) => v.dispose())
    made.clear()
  }
  const failing = <A>(f: () => A): A => {
    try {
      return f()
    } catch (e) {
      abort()
      throw e
    }
  }
  return {
    put: (name, w) =>
      failing(() => {
        const spec = specs.get(name)
        if (spec === undefined) return void (Lora.isAdapter(name) && adapters.set(name, w))
        if (made.has(name)) throw new Error(`weight ${name} given twice`)
        if (w.shape.join(',') !== spec.shape.join(',')) throw new Error(`weight ${name} has shape [${w.shape.join(', ')}], expected [${spec.shape.join(', ')}]`)
        made.set(name, variableOf(scope, name, w))
      }),
    finish: () =>
      failing(() => {
        const base: Record<string, tf.Variable> = {}
        for (const name of specs.keys()) {
          const v = made.get(name)
          if (v === undefined) throw new Error(`missing weight ${name}`)
          base[name] = v
        }
        const policy = assemble(config, scope, base, options, 1)
        for (const [name, v] of Object.entries(policy.variables)) {
          const saved = Lora.isAdapter(name) ? adapters.get(name) : undefined
          if (saved !== undefined) tf.tidy(() => v.assign(tf.tensor(saved.data, [...saved.shape])))
        }
        return policy
      }),
    abort
  }
}

/**
 * A model from host weights by Hugging Face name (a checkpoint or a Hugging Face folder).
 * Missing or mis-shaped weights throw; adapters (`lora_A`/`lora_B`) present in `weights` are
 * loaded instead of initialised when `options.lora` is set.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromHost = (config: ModelConfig, weights: ReadonlyMap<string, HostTensor>, options: MakeOptions = {}): Policy => {
  const build = builder(config, options)
  for (const [name, w] of weights) build.put(name, w)
  return build.finish()
}

/**
 * The variables an optimizer should update: the LoRA adapters when there are any, else all.
 *
 * @category destructors
 * @since 0.1.0
 */
export const trainableVariables = (policy: Policy): tf.Variable[] =>
  Object.entries(policy.variables)
    .filter(([name]) => policy.lora === undefined || Lora.isAdapter(name))
    .map(([, v]) => v)

/**
 * The weight accessor used by the forward passes (adapters merged).
 *
 * @category destructors
 * @since 0.1.0
 */
export const weightOf = (policy: Policy): transformer.WeightOf =>
  mergeWeights(policy.variables, policy.lora === undefined ? undefined : { scale: Lora.scale(policy.lora) })

/**
 * Next-token logits of a right-padded batch. Differentiable; the caller owns the result.
 *
 * @param ids int32 [B, T]
 * @returns [B, T, vocab]: logits at position t predict ids[t + 1]
 * @category destructors
 * @since 0.1.0
 */
export const logits =
  (policy: Policy) =>
  (ids: tf.Tensor2D): tf.Tensor3D =>
    tf.tidy(() => {
      const [B, T] = ids.shape
      const w = weightOf(policy)
      return tf.reshape(transformer.logits(policy.config, w, transformer.trunk(policy.config, w, ids)), [B, T, policy.config.vocab])
    })

/**
 * Host copies of every weight by Hugging Face name (for checkpoints). One bulk read per weight.
 *
 * @category destructors
 * @since 0.1.0
 */
export const toHost = (variables: NamedVariables): Map<string, HostTensor> => {
  const out = new Map<string, HostTensor>()
  for (const [name, v] of Object.entries(variables)) out.set(name, { shape: v.shape, data: new Float32Array(v.dataSync()) })
  return out
}

/**
 * The Hugging Face name of one of a policy's (or critic's) variables, from its tf name.
 *
 * @category destructors
 * @since 0.1.0
 */
export const variableName = nameOf
