/**
 * Forward passes without gradient over a whole batch, in chunks of rows, read back once per
 * chunk: trainer log-probs, reference log-probs, critic values.
 */
import { Critic, Scoring, type Policy } from '@mtrl/policy'
import type { Batch } from '@mtrl/rollout'
import * as tf from '@tensorflow/tfjs'

const CHUNK = 32

/**
 * Rows in order of length, `CHUNK` at a time, each chunk cut to its longest row (only padding
 * goes; a causal model scores the kept tokens as in the full row), written back in place.
 */
const chunked = (batch: Batch.Batch, f: (ids: tf.Tensor2D) => tf.Tensor): Float32Array => {
  const T = batch.time
  const out = new Float32Array(batch.batch * T)
  const order = Array.from({ length: batch.batch }, (_, i) => i).sort((a, b) => batch.lengths[a]! - batch.lengths[b]!)
  for (let start = 0; start < order.length; start += CHUNK) {
    const rows = order.slice(start, start + CHUNK)
    const time = Math.max(1, ...rows.map((r) => batch.lengths[r]!))
    const flat = new Int32Array(rows.length * time)
    rows.forEach((r, i) => flat.set(batch.ids.subarray(r * T, r * T + time), i * time))
    const ids = tf.tensor2d(flat, [rows.length, time], 'int32')
    const result = tf.tidy(() => f(ids))
    const values = result.dataSync()
    rows.forEach((r, i) => out.set(values.subarray(i * time, (i + 1) * time), r * T))
    tf.dispose([ids, result])
  }
  return out
}

/** `[batch, time]` log p(ids[t] | ids[<t]) at `temperature`. */
export const logprobs = (policy: Policy.Policy, batch: Batch.Batch, temperature: number): Float32Array =>
  chunked(batch, (ids) => {
    const { logprobs: lp, entropy } = Scoring.tokenLogprobs(policy, { entropy: false })(ids, temperature)
    entropy.dispose()
    return lp
  })

/** `[batch, time]` V after reading ids[<= t]. */
export const valuesAfter = (critic: Critic.Critic, batch: Batch.Batch): Float32Array => chunked(batch, (ids) => Critic.values(critic)(ids))

/** `[batch, time]` V of the state in which ids[t] is sampled: V after ids[<= t-1] (0 at t = 0). */
export const valuesBefore = (after: Float32Array, batch: Batch.Batch): Float32Array => {
  const out = new Float32Array(after.length)
  for (let b = 0; b < batch.batch; b++) out.set(after.subarray(b * batch.time, (b + 1) * batch.time - 1), b * batch.time + 1)
  return out
}

/** The same shift on a differentiable `[B, T]` tensor. */
export const shiftRight = (values: tf.Tensor2D): tf.Tensor2D =>
  tf.tidy(() => {
    const [B, T] = values.shape
    return tf.concat([tf.zeros([B, 1]), tf.slice(values, [0, 0], [B, T - 1])], 1) as tf.Tensor2D
  })
