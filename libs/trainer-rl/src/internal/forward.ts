/**
 * Forward passes without gradient over a whole batch, in chunks of rows, read back once per
 * chunk: trainer log-probs, reference log-probs, critic values.
 */
import { Critic, Scoring, type Policy } from '@mtrl/policy'
import type { Batch } from '@mtrl/rollout'
import * as tf from '@tensorflow/tfjs'

/**
 * Tokens (rows x width) of one chunk at most, unless a single row is longer. A forward pass holds
 * every intermediate of its chunk until it ends, about 0.1 MB per token for rl-lift's model
 * (1.1 GB for 32 rows of 366 tokens, measured with `tf.profile` on wasm), and wasm's heap never
 * shrinks and stops at 4 GB: chunks of 32 rows grew it to 3.6 GB within two iterations and a
 * REINFORCE++ run in one thread aborted at its seventh ("memory access out of bounds").
 */
export const CHUNK_TOKENS = 4096

/** Consecutive runs of `order` (rows sorted by length) whose rows x longest row stay within `CHUNK_TOKENS`. */
export const chunksOf = (order: ReadonlyArray<number>, lengths: ArrayLike<number>): number[][] => {
  const out: number[][] = []
  let current: number[] = []
  let width = 1
  for (const r of order) {
    const w = Math.max(width, lengths[r]!)
    if (current.length > 0 && (current.length + 1) * w > CHUNK_TOKENS) {
      out.push(current)
      current = []
      width = 1
    }
    current.push(r)
    width = Math.max(width, lengths[r]!)
  }
  if (current.length > 0) out.push(current)
  return out
}

/**
 * Rows in order of length, in chunks of at most `CHUNK_TOKENS` tokens, each cut to its longest row
 * (only padding goes; a causal model scores the kept tokens as in the full row), written back in place.
 */
const chunked = (batch: Batch.Batch, f: (ids: tf.Tensor2D, allowed: Batch.Batch['allowed']) => tf.Tensor): Float32Array => {
  const T = batch.time
  const out = new Float32Array(batch.batch * T)
  const order = Array.from({ length: batch.batch }, (_, i) => i).sort((a, b) => batch.lengths[a]! - batch.lengths[b]!)
  for (const rows of chunksOf(order, batch.lengths)) {
    const time = Math.max(1, ...rows.map((r) => batch.lengths[r]!))
    const flat = new Int32Array(rows.length * time)
    rows.forEach((r, i) => flat.set(batch.ids.subarray(r * T, r * T + time), i * time))
    const ids = tf.tensor2d(flat, [rows.length, time], 'int32')
    const allowed = batch.allowed === undefined ? undefined : rows.map((r) => batch.allowed![r] ?? [])
    const result = tf.tidy(() => f(ids, allowed))
    const values = result.dataSync()
    rows.forEach((r, i) => out.set(values.subarray(i * time, (i + 1) * time), r * T))
    tf.dispose([ids, result])
  }
  return out
}

/** `[batch, time]` log p(ids[t] | ids[<t]) at `temperature`; at constrained positions (`batch.allowed`) under their masks, as sampled. */
export const logprobs = (policy: Policy.Policy, batch: Batch.Batch, temperature: number): Float32Array =>
  chunked(batch, (ids, allowed) => {
    const { logprobs: lp, entropy } = Scoring.tokenLogprobs(policy, { entropy: false, ...(allowed === undefined ? {} : { allowed }) })(ids, temperature)
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
