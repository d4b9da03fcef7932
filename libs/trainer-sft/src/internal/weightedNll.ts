/**
 * The loss both the main thread and the replicas differentiate: a weighted token NLL,
 * `-sum_k coef_k * sum_{b,t} mask_k[b,t] log p(ids[b,t] | ids[b,<t])`. With `coef_k` =
 * 1 / (the whole batch's count of mask k), the losses of a batch's shards add up to the batch's
 * mean loss, so their gradients add up to the batch's gradient.
 */
import { Policy, Scoring } from '@mtrl/policy'
import * as tf from '@tensorflow/tfjs'

/** A shard of a batch: right-padded ids and K masks, row-major [rows, time]. */
export interface Shard {
  readonly rows: number
  readonly time: number
  readonly ids: Int32Array
  readonly masks: ReadonlyArray<Float32Array>
}

/**
 * The loss (differentiable) and, as aux `s0`, `s1`, ..., each mask's log-likelihood sum
 * (`sum(mask_k * logp)`, not negated, not scaled), each layer recomputed in the backward pass
 * with `recompute`. Runs in `tf.tidy`.
 */
export const weightedNll = (
  policy: Policy.Policy,
  shard: Shard,
  coefs: ReadonlyArray<number>,
  recompute = false
): { readonly loss: tf.Scalar; readonly aux: Record<string, tf.Scalar> } =>
  tf.tidy(() => {
    const ids = tf.tensor2d(shard.ids, [shard.rows, shard.time], 'int32')
    const logprobs = Scoring.tokenLogprobs(policy, { entropy: false, recompute })(ids).logprobs
    const sums = shard.masks.map((m) => tf.sum(tf.mul(logprobs, tf.tensor2d(m, [shard.rows, shard.time], 'float32'))) as tf.Scalar)
    const loss = tf.neg(tf.addN(sums.map((s, k) => tf.mul(s, coefs[k]!)))) as tf.Scalar
    return { loss, aux: Object.fromEntries(sums.map((s, k) => [`s${k}`, s])) }
  })
