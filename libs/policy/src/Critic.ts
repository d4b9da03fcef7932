/**
 * The critic: a value head `V(h_t) = w . h_t + b` on a transformer trunk, either a separate
 * copy of the trunk (as in the paper's PPO, where the critic is initialised from the policy) or
 * the policy's own trunk (`shareTrunk: true`: a value head on the policy's features; the value
 * loss moves only the head, and `Scoring.tokenLogprobsWithValues` reads log-probs and values
 * from one forward pass, so a PPO update costs about half).
 *
 * @since 0.1.0
 */
import { Rng } from '@mtrl/core'
import * as tf from '@tensorflow/tfjs'
import * as transformer from './internal/transformer.js'
import { disposeAll, freshScope, initial, normal, variableOf, weightOf as mergeWeights, type NamedVariables } from './internal/weights.js'
import { validate, type ModelConfig } from './ModelConfig.js'
import { weightOf as policyWeights, type Policy } from './Policy.js'

/**
 * A critic. `variables` holds its own weights (the value head, plus the trunk when separate),
 * by Hugging Face name (`v_head.weight`, `v_head.bias`, `model.layers.0...`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Critic {
  readonly _tag: 'Critic'
  readonly config: ModelConfig
  readonly shareTrunk: boolean
  /** The policy whose trunk is shared (when `shareTrunk`). */
  readonly policy: Policy | undefined
  readonly variables: NamedVariables
  readonly dispose: () => void
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly shareTrunk: boolean
}

const trunkNames = (config: ModelConfig): ReadonlyArray<transformer.ParameterSpec> =>
  transformer.parameterSpecs(config).filter((s) => s.name !== 'lm_head.weight')

/**
 * A critic for a configuration (fresh trunk) or a policy (trunk copied from it, or shared).
 * The head starts near zero (Normal(0, 0.001)). `dispose` frees the critic's own variables,
 * never a shared policy's.
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (source: ModelConfig | Policy, options: Options, seed: number): Critic => {
  const policy = '_tag' in source && source._tag === 'Policy' ? source : undefined
  const config = validate(policy === undefined ? (source as ModelConfig) : policy.config)
  if (options.shareTrunk && policy === undefined) throw new Error('Critic.make: shareTrunk needs a policy')
  const rng = Rng.make(seed)
  const scope = freshScope('critic')
  const variables: Record<string, tf.Variable> = {}
  if (!options.shareTrunk) {
    const copy = policy === undefined ? undefined : policyWeights(policy)
    for (const spec of trunkNames(config)) {
      if (copy === undefined) variables[spec.name] = variableOf(scope, spec.name, initial(spec, rng))
      else variables[spec.name] = tf.tidy(() => tf.variable(copy(spec.name), true, `${scope}/${spec.name}`))
    }
  }
  variables['v_head.weight'] = variableOf(scope, 'v_head.weight', { shape: [1, config.dModel], data: normal(rng, config.dModel, 0.001) })
  variables['v_head.bias'] = variableOf(scope, 'v_head.bias', { shape: [1], data: new Float32Array(1) })
  return {
    _tag: 'Critic',
    config,
    shareTrunk: options.shareTrunk,
    policy: options.shareTrunk ? policy : undefined,
    variables,
    dispose: () => disposeAll(variables)
  }
}

/**
 * A critic from saved variables (a checkpoint).
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromVariables = (config: ModelConfig, variables: NamedVariables, policy: Policy | undefined): Critic => ({
  _tag: 'Critic',
  config,
  shareTrunk: policy !== undefined,
  policy,
  variables,
  dispose: () => disposeAll(variables)
})

/**
 * The variables a value loss should update: the head, plus the trunk when separate (a shared
 * trunk's variables are the policy's; add them to the list to train the trunk too).
 *
 * @category destructors
 * @since 0.1.0
 */
export const trainableVariables = (critic: Critic): tf.Variable[] => Object.values(critic.variables)

/**
 * Values of a right-padded batch: `V(h_t)`, the value after reading `ids[<=t]`.
 * Differentiable; the caller owns the result.
 *
 * @param ids int32 [B, T]
 * @returns [B, T]
 * @category destructors
 * @since 0.1.0
 */
export const values =
  (critic: Critic) =>
  (ids: tf.Tensor2D): tf.Tensor2D =>
    tf.tidy(() => {
      const [B, T] = ids.shape
      const trunkWeights = critic.policy === undefined ? mergeWeights(critic.variables, undefined) : policyWeights(critic.policy)
      return tf.reshape(valueHead(critic, transformer.trunk(critic.config, trunkWeights, ids)), [B, T]) as tf.Tensor2D
    })

/**
 * The value head on hidden states: `w . h + b` over the last axis. Differentiable.
 *
 * @param hidden [..., dModel]
 * @returns [...]
 * @category destructors
 * @since 0.2.0
 */
export const valueHead = (critic: Critic, hidden: tf.Tensor): tf.Tensor2D => {
  const head = critic.variables['v_head.weight'] as tf.Variable
  const bias = critic.variables['v_head.bias'] as tf.Variable
  return tf.add(tf.sum(tf.mul(hidden, head), -1), bias) as tf.Tensor2D
}
