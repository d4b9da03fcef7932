/**
 * The task the RL update's replicas run (`@mtrl/replicas`): copies of the policy and of a
 * separate critic, and two loss parts, `policy` and `critic`, on a shard (./shardLoss.ts).
 */
import { Critic, Policy, type Lora, type ModelConfig } from '@mtrl/policy'
import type { Task } from '@mtrl/replicas'
import * as tf from '@tensorflow/tfjs'
import { microShards, policyLoss, valueLoss, type LossSettings, type PolicyShard, type ValueShard } from './shardLoss.js'

type Weights = ReadonlyArray<readonly [string, Policy.HostTensor]>

export interface UpdateTaskData {
  readonly policy: {
    readonly config: ModelConfig.ModelConfig
    readonly lora: Lora.Options | undefined
    /** Every weight (base and adapters), by Hugging Face name. */
    readonly weights: Weights
    /** The names of the variables it differentiates, in the order of the flat arrays. */
    readonly trainable: ReadonlyArray<string>
  }
  /** A separate critic's weights (all trained), in the order of the flat arrays; none: no critic. */
  readonly critic: { readonly config: ModelConfig.ModelConfig; readonly weights: Weights } | undefined
}

/** A shard's loss part; `microTokens`: the most tokens one backward pass takes (see `Config.microBatchTokens`). */
export type UpdatePayload =
  | { readonly part: 'policy'; readonly settings: LossSettings; readonly klCoef: number; readonly microTokens: number; readonly shard: PolicyShard }
  | { readonly part: 'critic'; readonly settings: LossSettings; readonly microTokens: number; readonly shard: ValueShard }

/** A payload in micro-batches of at most `microTokens` tokens, whose gradients add up to its gradient. */
export const splitPayload = (payload: UpdatePayload): ReadonlyArray<UpdatePayload> =>
  payload.part === 'policy'
    ? microShards(payload.microTokens)(payload.shard).map((shard) => ({ ...payload, shard }))
    : microShards(payload.microTokens)(payload.shard).map((shard) => ({ ...payload, shard }))

const build = (data: UpdateTaskData): Task.Handler => {
  const policy = Policy.fromHost(data.policy.config, new Map(data.policy.weights), data.policy.lora === undefined ? {} : { lora: data.policy.lora })
  const trainable = data.policy.trainable.map((name) => {
    const v = policy.variables[name]
    if (v === undefined) throw new Error(`replica: no policy variable ${name}`)
    return v
  })
  const critic =
    data.critic === undefined
      ? undefined
      : Critic.fromVariables(
          data.critic.config,
          Object.fromEntries(data.critic.weights.map(([name, w]) => [name, tf.variable(tf.tensor(w.data, [...w.shape]), true, `critic-replica/${name}`)])),
          undefined
        )
  return {
    variables: { policy: trainable, ...(critic === undefined ? {} : { critic: Critic.trainableVariables(critic) }) },
    loss: (_part, payload) => {
      const p = payload as UpdatePayload
      if (p.part === 'policy') return policyLoss(policy, p.settings, p.klCoef, p.shard)
      if (critic === undefined) throw new Error('replica: no critic')
      return valueLoss(critic, p.settings, p.shard)
    },
    split: (_part, payload) => splitPayload(payload as UpdatePayload)
  }
}
export default build
