/**
 * The task the RL update's replicas run (`@mtrl/replicas`): copies of the policy and of a
 * separate critic, and two loss parts, `policy` and `critic`, on a shard (./shardLoss.ts).
 */
import { Critic, Replica, type Policy, type ModelConfig } from '@mtrl/policy'
import type { Task } from '@mtrl/replicas'
import * as tf from '@tensorflow/tfjs'
import { microShards, policyLoss, valueLoss, type LossSettings, type PolicyShard, type ValueShard } from './shardLoss.js'

type Weights = ReadonlyArray<readonly [string, Policy.HostTensor]>

export interface UpdateTaskData {
  /** The policy the replicas copy (`Replica.Data` of @mtrl/policy). */
  readonly policy: Replica.Data
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
  const { policy, variables: trainable } = Replica.fromData(data.policy)
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
