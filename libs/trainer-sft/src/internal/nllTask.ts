/**
 * The task SFT's replicas run (`@mtrl/replicas`): a copy of the policy, and one loss part,
 * `policy`, the weighted token NLL of a shard (see ./weightedNll.ts).
 */
import { Policy, type Lora, type ModelConfig } from '@mtrl/policy'
import type { Task } from '@mtrl/replicas'
import { weightedNll, type Shard } from './weightedNll.js'

export interface NllTaskData {
  readonly config: ModelConfig.ModelConfig
  readonly lora: Lora.Options | undefined
  /** Every weight (base and adapters), by Hugging Face name. */
  readonly weights: ReadonlyArray<readonly [string, Policy.HostTensor]>
  /** The names of the variables it differentiates, in the order of the flat arrays. */
  readonly trainable: ReadonlyArray<string>
}

/** What a request carries: the shard and the coefficient of each of its masks. */
export interface NllPayload {
  readonly shard: Shard
  readonly coefs: ReadonlyArray<number>
}

const build = (data: NllTaskData): Task.Handler => {
  const policy = Policy.fromHost(data.config, new Map(data.weights), data.lora === undefined ? {} : { lora: data.lora })
  const variables = data.trainable.map((name) => {
    const v = policy.variables[name]
    if (v === undefined) throw new Error(`replica: no variable ${name}`)
    return v
  })
  return { variables: { policy: variables }, loss: (_part, payload) => weightedNll(policy, (payload as NllPayload).shard, (payload as NllPayload).coefs) }
}
export default build
