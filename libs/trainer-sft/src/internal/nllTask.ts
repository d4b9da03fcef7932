/**
 * The task SFT's replicas run (`@mtrl/replicas`): a copy of the policy, and one loss part,
 * `policy`, the weighted token NLL of a shard (see ./weightedNll.ts).
 */
import { Replica } from '@mtrl/policy'
import type { Task } from '@mtrl/replicas'
import { weightedNll, type Shard } from './weightedNll.js'

/** The policy the replicas copy (`Replica.Data` of @mtrl/policy). */
export type NllTaskData = Replica.Data

/** What a request carries: the shard and the coefficient of each of its masks. */
export interface NllPayload {
  readonly shard: Shard
  readonly coefs: ReadonlyArray<number>
  /** Gradient checkpointing (`Sft.Options.recompute`). */
  readonly recompute?: boolean
}

const build = (data: NllTaskData): Task.Handler => {
  const { policy, variables } = Replica.fromData(data)
  const loss = (payload: NllPayload): ReturnType<typeof weightedNll> => weightedNll(policy, payload.shard, payload.coefs, payload.recompute === true)
  return { variables: { policy: variables }, loss: (_part, payload) => loss(payload as NllPayload) }
}
export default build
