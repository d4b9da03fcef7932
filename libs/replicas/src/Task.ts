/**
 * What a replica computes: a task module, named by URL, whose default export builds the
 * replica's copy of the models from plain data and returns a {@link Handler}. The trainer that
 * starts the pool owns the module (its models, its losses); the pool only moves weights in and
 * gradients out.
 *
 * A loss is split in named parts (e.g. `policy` and `critic`), each over its own variables: a
 * request names the part, carries that part's current weights (flat, in the handler's order)
 * and a payload (a shard of the batch), and gets back the gradient of the part's loss and its
 * auxiliary scalars. For the shards' gradients to add up to the batch's, each shard's loss must
 * be its share of the batch loss (e.g. token sums divided by the whole batch's token count),
 * and so must every auxiliary scalar that is to be added up.
 *
 * @since 0.1.0
 */
import type * as tf from '@tensorflow/tfjs'

export type { Task } from './internal/protocol.js'

/**
 * A replica's models and losses.
 *
 * @category models
 * @since 0.1.0
 */
export interface Handler {
  /** The variables each loss part differentiates, in the order of the flat weight and gradient arrays. */
  readonly variables: Readonly<Record<string, ReadonlyArray<tf.Variable>>>
  /** The part's loss on a payload (differentiable), with auxiliary scalars. */
  readonly loss: (part: string, payload: unknown) => { readonly loss: tf.Scalar; readonly aux?: Readonly<Record<string, tf.Scalar>> }
  /**
   * Micro-batches of a payload whose losses add up to its loss: the replica takes one backward
   * pass per micro-batch and sums the gradients (gradient accumulation), so its memory is that of
   * one micro-batch. None: the payload in one pass.
   */
  readonly split?: (part: string, payload: unknown) => ReadonlyArray<unknown>
}

/**
 * The flat values of `variables`, in order (what a request's `weights` holds).
 *
 * @category destructors
 * @since 0.1.0
 */
export const flatten = (variables: ReadonlyArray<tf.Variable | tf.Tensor>): Float32Array => {
  const out = new Float32Array(variables.reduce((n, v) => n + v.size, 0))
  let at = 0
  for (const v of variables) {
    out.set(v.dataSync() as Float32Array, at)
    at += v.size
  }
  return out
}
