/**
 * A policy as plain data for the threads of a data-parallel update (`@mtrl/replicas`), and back:
 * its configuration, LoRA options, every weight by Hugging Face name (none when no thread needs
 * them), and the names of the variables the threads differentiate, in the optimizer's order (so
 * the threads' flat gradient arrays line up with the trainer's variables). The SFT and the RL
 * updates' replicas both carry their policy this way.
 *
 * @since 0.7.0
 */
import type * as tf from '@tensorflow/tfjs'
import type * as Lora from './Lora.js'
import type { ModelConfig } from './ModelConfig.js'
import * as Policy from './Policy.js'

/**
 * @category models
 * @since 0.7.0
 */
export interface Data {
  readonly config: ModelConfig
  readonly lora: Lora.Options | undefined
  /** Every weight (base and adapters), by Hugging Face name; empty when no thread is started. */
  readonly weights: ReadonlyArray<readonly [string, Policy.HostTensor]>
  /** The names of the variables it differentiates, in the order of the flat arrays. */
  readonly trainable: ReadonlyArray<string>
}

/**
 * The policy's data (`withWeights`: copy its weights to the host, for threads to start from) and
 * its trainable variables in the order of `trainable`.
 *
 * @category destructors
 * @since 0.7.0
 */
export const toData = (policy: Policy.Policy, withWeights: boolean): { readonly data: Data; readonly variables: ReadonlyArray<tf.Variable> } => {
  const variables = Policy.trainableVariables(policy)
  const nameOf = new Map(Object.entries(policy.variables).map(([name, v]) => [v, name]))
  const weights = withWeights ? [...Policy.toHost(policy.variables).entries()] : []
  return { data: { config: policy.config, lora: policy.lora, weights, trainable: variables.map((v) => nameOf.get(v)!) }, variables }
}

/**
 * A thread's copy of the policy and its variables in the order of `trainable`; a name the copy
 * lacks is an error naming it.
 *
 * @category constructors
 * @since 0.7.0
 */
export const fromData = (data: Data): { readonly policy: Policy.Policy; readonly variables: ReadonlyArray<tf.Variable> } => {
  const policy = Policy.fromHost(data.config, new Map(data.weights), data.lora === undefined ? {} : { lora: data.lora })
  const variables = data.trainable.map((name) => {
    const v = policy.variables[name]
    if (v === undefined) throw new Error(`replica: no policy variable ${name}`)
    return v
  })
  return { policy, variables }
}
