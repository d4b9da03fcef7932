/**
 * Data-parallel replicas of the RL update (`@mtrl/replicas`): worker threads that each hold a
 * copy of the policy and of a separate critic and compute the gradient of a shard of every
 * minibatch, under the same policy and value losses as the trainer's own thread. The trainer
 * adds the shards' gradients up and steps once per minibatch, so the update is the same as
 * without replicas up to float summation order (tested).
 *
 * What it is for: the wasm backend computes on one thread under Node, and the update is most
 * of an RL iteration's time there; a second core takes half of every minibatch.
 * Not for a critic that shares the policy's trunk (its one-pass update stays in one thread).
 *
 * @since 0.2.0
 */
import { Critic, Policy, Replica } from '@mtrl/policy'
import { Pool as Workers } from '@mtrl/replicas'
import type * as tf from '@tensorflow/tfjs'
import type { UpdateTaskData } from './internal/updateTask.js'

/**
 * The replicas of one trainer's policy and critic. `dispose` stops them.
 *
 * @category models
 * @since 0.2.0
 */
export interface Pool {
  readonly _tag: 'UpdateReplicas'
  /** Worker threads (0: none; the trainer updates alone). */
  readonly size: number
  /** The TensorFlow.js backend each worker computes on. */
  readonly backends: ReadonlyArray<string>
  /** The policy's variables the workers differentiate, in their order (the trainer's policy optimizer's). */
  readonly policyVariables: ReadonlyArray<tf.Variable>
  /** The critic's, likewise (none without a critic). */
  readonly criticVariables: ReadonlyArray<tf.Variable>
  readonly workers: Workers.Pool
  readonly dispose: () => Promise<void>
}

/** The task module the workers run: from sources, or its dist/ entry. */
const taskUrl = (): string => {
  const here = import.meta.url
  return here.endsWith('.ts') ? new URL('./internal/updateTask.ts', here).href : new URL('./update-task.js', here).href
}

/**
 * Starts `workers` replicas of `policy` (its current weights; LoRA-aware) and of `critic` (a
 * separate one; none for critic-free algorithms), each thread prepared by `init` (`@mtrl/replicas`'s
 * `Pool.Init`: where the app activates its backend). `workers` 0 gives an empty pool.
 *
 * @example
 * import { Trainer, UpdateReplicas } from '@mtrl/trainer-rl'
 * declare const setup: Trainer.Setup
 * const replicas = await UpdateReplicas.start(setup.policy, setup.critic, 1)
 * const trainer = Trainer.make({ ...setup, replicas })
 * // ... Trainer.iterate(trainer)() ...
 * trainer.dispose()
 * await replicas.dispose()
 *
 * @category constructors
 * @since 0.2.0
 */
export const start = async (policy: Policy.Policy, critic: Critic.Critic | undefined, workers: number, init?: Workers.Init): Promise<Pool> => {
  if (critic?.shareTrunk === true)
    throw new Error(
      'UpdateReplicas.start: a critic that shares the policy trunk updates in one pass, in one thread; use a separate critic (critic.shareTrunk false) with replicas'
    )
  const host = workers > 0
  const { data: policyData, variables: policyVariables } = Replica.toData(policy, host)
  const data: UpdateTaskData = {
    policy: policyData,
    critic: critic === undefined ? undefined : { config: critic.config, weights: host ? [...Policy.toHost(critic.variables).entries()] : [] }
  }
  const pool = await Workers.start({ url: taskUrl(), data }, workers, init)
  return {
    _tag: 'UpdateReplicas',
    size: pool.size,
    backends: pool.backends,
    policyVariables,
    criticVariables: critic === undefined ? [] : Critic.trainableVariables(critic),
    workers: pool,
    dispose: pool.dispose
  }
}
