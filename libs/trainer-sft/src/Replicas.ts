/**
 * Data-parallel replicas of a policy for SFT: worker threads (`@mtrl/replicas`) that each hold
 * a copy of the model and compute the gradient of a shard of every batch's token NLL, as
 * PyTorch's DistributedDataParallel does across processes. The calling thread is replica 0;
 * only it keeps an optimizer, so every step is one Adam update of the summed gradient.
 *
 * What it is for: the wasm backend computes on one thread under Node (threads inside one wasm
 * instance gave +14%, docs REFERENCE), so a second core trains only as a second replica: two
 * replicas at 2 rows each train about twice the tokens per second of one at 4 rows.
 *
 * The shard losses are scaled by the whole batch's token counts, so the summed gradient is the
 * batch's gradient (up to float summation order: results differ from one replica in the last
 * bits, and are deterministic for a given number of replicas).
 *
 * @since 0.1.0
 */
import { Replica, type Policy } from '@mtrl/policy'
import { Pool as Workers } from '@mtrl/replicas'
import type * as tf from '@tensorflow/tfjs'

export type { Shard } from './internal/weightedNll.js'

/**
 * How a replica's thread prepares itself before it builds the model (`@mtrl/replicas`'s
 * `Pool.Init`): the application activates its backend there.
 *
 * @category models
 * @since 0.1.0
 */
export type Init = Workers.Init

/**
 * Worker replicas of one policy (the calling thread is one more). `dispose` stops them.
 *
 * @category models
 * @since 0.1.0
 */
export interface Pool {
  readonly _tag: 'Replicas'
  /** Worker threads (0: none; the caller trains alone). */
  readonly size: number
  /** The TensorFlow.js backend each worker computes on. */
  readonly backends: ReadonlyArray<string>
  /** The variables they differentiate, in flat-array order (the policy's trainable ones). */
  readonly variables: ReadonlyArray<tf.Variable>
  /** The worker threads. */
  readonly workers: Workers.Pool
  readonly dispose: () => Promise<void>
}

/** The task module the workers run: from sources, or its dist/ entry. */
const taskUrl = (): string => {
  const here = import.meta.url
  return here.endsWith('.ts') ? new URL('./internal/nllTask.ts', here).href : new URL('./nll-task.js', here).href
}

/**
 * Starts `workers` replicas of `policy` (its current weights; LoRA-aware), each thread prepared
 * by `init` (see {@link Init}). `workers` 0 gives an empty pool.
 *
 * @example
 * import { Replicas, Sft } from '@mtrl/trainer-sft'
 * declare const policy: import('@mtrl/policy').Policy.Policy
 * declare const demos: ReadonlyArray<import('@mtrl/core').Trajectory.Trajectory>
 * const pool = await Replicas.start(policy, 1, { url: new URL('./useWasm.js', import.meta.url).href })
 * try {
 *   Sft.train({ ...Sft.defaultOptions, batchSize: 4 })(policy)(demos, {}, pool)
 * } finally {
 *   await pool.dispose()
 * }
 *
 * @category constructors
 * @since 0.1.0
 */
export const start = async (policy: Policy.Policy, workers: number, init?: Init): Promise<Pool> => {
  // the optimizer's order: the workers' flat arrays must line up with its variables
  const { data, variables } = Replica.toData(policy, workers > 0)
  const pool = await Workers.start({ url: taskUrl(), data }, workers, init)
  return { _tag: 'Replicas', size: pool.size, backends: pool.backends, variables, workers: pool, dispose: pool.dispose }
}

/**
 * Splits rows (by their lengths) into at most `parts` non-empty groups of similar token counts
 * (`@mtrl/replicas`'s `Pool.split`).
 *
 * @category combinators
 * @since 0.1.0
 */
export const split = Workers.split
