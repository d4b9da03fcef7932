/**
 * Constrained decoding's masks in scoring: at the positions a sampler drew under a grammar's
 * mask, the log-prob and entropy of the masked distribution (logits outside the allowed set at
 * -inf before the log-softmax), so a trainer sees the distribution the tokens came from. Only
 * the constrained rows are recomputed (K rows of logits); the mask is never a dense [B, T, V].
 */
import * as tf from '@tensorflow/tfjs'
import { embed, pick } from './ops.js'

/**
 * One constrained position of a row: `ids[position]` was drawn under `mask` (bit `id % 32` of
 * word `id >> 5` set: allowed).
 */
export interface Allowed {
  readonly position: number
  readonly mask: Int32Array
}

/** The constrained rows of the flat [B * (T - 1)] prediction layout (row `b (T - 1) + t - 1` predicts `ids[b, t]`), with their masks. */
export const flatRows = (allowed: ReadonlyArray<ReadonlyArray<Allowed>>, B: number, T: number): { rows: Int32Array; masks: Int32Array[] } => {
  if (allowed.length > B) throw new Error(`Scoring: allowed has ${allowed.length} rows for a batch of ${B}`)
  const rows: number[] = []
  const masks: Int32Array[] = []
  allowed.forEach((list, b) =>
    list.forEach(({ position, mask }) => {
      if (!Number.isInteger(position) || position < 1 || position >= T) throw new Error(`Scoring: allowed[${b}] position ${position} is outside 1..${T - 1}`)
      rows.push(b * (T - 1) + position - 1)
      masks.push(mask)
    })
  )
  return { rows: Int32Array.from(rows), masks }
}

/** [K, V]: 0 where the mask allows a token, -inf elsewhere. */
const biasOf = (masks: ReadonlyArray<Int32Array>, V: number): tf.Tensor2D => {
  const out = new Float32Array(masks.length * V).fill(Number.NEGATIVE_INFINITY)
  masks.forEach((mask, k) => {
    const words = Math.min(mask.length, Math.ceil(V / 32))
    for (let w = 0; w < words; w++) {
      const bits = mask[w]!
      if (bits === 0) continue
      for (let j = 0; j < 32; j++) if (((bits >>> j) & 1) === 1 && w * 32 + j < V) out[k * V + w * 32 + j] = 0
    }
  })
  return tf.tensor2d(out, [masks.length, V])
}

/**
 * Log-probs and entropies [K] of the masked distributions at `rows` of hidden states `h`
 * [N, d] predicting `targets` [N]; `logits` maps hidden states to (soft-capped) logits.
 */
export const maskedScores = (
  h: tf.Tensor2D,
  targets: tf.Tensor1D,
  rows: Int32Array,
  masks: ReadonlyArray<Int32Array>,
  logits: (hidden: tf.Tensor2D) => tf.Tensor2D,
  temperature: number,
  V: number
): { logprobs: tf.Tensor1D; entropy: tf.Tensor1D } => {
  const at = tf.tensor1d(rows, 'int32')
  let z = logits(embed(h, at))
  if (temperature !== 1) z = tf.div(z, temperature)
  const logp = tf.logSoftmax(tf.add(z, biasOf(masks, V))) as tf.Tensor2D
  // p log p is 0 outside the allowed set (0 * -inf would be NaN, in the value and the gradient)
  const finite = tf.where(tf.isFinite(logp), logp, tf.zerosLike(logp))
  return { logprobs: pick(logp, tf.gather(targets, at)), entropy: tf.neg(tf.sum(tf.mul(tf.exp(logp), finite), -1)) as tf.Tensor1D }
}

/** `all` [N] with the entries at `rows` replaced by `masked` [K] (a gather, differentiable into both). */
export const merge = (all: tf.Tensor, masked: tf.Tensor1D, rows: Int32Array): tf.Tensor1D => {
  const K = rows.length
  const N = all.size
  const from = new Int32Array(N)
  for (let r = 0; r < N; r++) from[r] = K + r
  rows.forEach((r, k) => (from[r] = k))
  const both = tf.reshape(tf.concat([masked, tf.reshape(all, [N])]), [K + N, 1]) as tf.Tensor2D
  return tf.reshape(embed(both, tf.tensor1d(from, 'int32')), [N])
}
