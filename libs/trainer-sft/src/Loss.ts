/**
 * The SFT loss: the mean negative log-likelihood of the action tokens given everything before
 * them (prompt and observation tokens are context only), and the masks and held-out measure
 * around it.
 *
 * ```
 * loss = - sum_{b,t} m[b,t] log p(ids[b,t] | ids[b,<t]) / sum_{b,t} m[b,t]     (m: action mask)
 * ```
 *
 * @since 0.1.0
 */
import type { Trajectory } from '@mtrl/core'
import { Scoring, type Policy } from '@mtrl/policy'
import { Batch } from '@mtrl/rollout'
import * as tf from '@tensorflow/tfjs'
import { chunks } from './internal/chunks.js'

/**
 * The SFT loss from per-token log-probs: mean negative log-likelihood over the tokens of
 * `mask` (the action mask for the SFT loss, {@link contextMask} for the context loss). Runs in
 * `tf.tidy`; differentiable; the caller owns the scalar.
 *
 * @param logprobs `[batch, time]` (`Scoring.tokenLogprobs` output)
 * @param actionMask `[batch, time]` float32, 1 on the tokens that count
 * @category losses
 * @since 0.1.0
 */
export const actionLoss = (logprobs: tf.Tensor, actionMask: tf.Tensor): tf.Scalar =>
  tf.tidy(() => tf.div(tf.neg(tf.sum(tf.mul(logprobs, actionMask))), tf.maximum(tf.sum(actionMask), 1)) as tf.Scalar)

/**
 * A batch's ids and action mask as tensors (the caller owns them).
 *
 * @category constructors
 * @since 0.1.0
 */
export const tensors = (batch: Batch.Batch): { readonly ids: tf.Tensor2D; readonly mask: tf.Tensor2D } => ({
  ids: tf.tensor2d(batch.ids, [batch.batch, batch.time], 'int32'),
  mask: tf.tensor2d(batch.actionMask, [batch.batch, batch.time], 'float32')
})

/**
 * 1 on the context tokens a row predicts (positions 1 .. length-1 that are not actions): the
 * first token has no prediction and padding is not data.
 *
 * @category models
 * @since 0.1.0
 */
export const contextMask = (batch: Batch.Batch): Float32Array => {
  const out = new Float32Array(batch.batch * batch.time)
  for (let b = 0; b < batch.batch; b++) {
    const row = b * batch.time
    for (let t = 1; t < batch.lengths[b]!; t++) out[row + t] = batch.actionMask[row + t] === 1 ? 0 : 1
  }
  return out
}

/**
 * Mean action-token NLL of `samples` under `policy` (token-weighted over all samples; no
 * gradient). NaN for no samples.
 *
 * @category destructors
 * @since 0.1.0
 */
export const evaluate =
  (policy: Policy.Policy, batchSize = 16) =>
  (samples: ReadonlyArray<Trajectory.Trajectory>): number => {
    let nll = 0
    let count = 0
    for (const part of chunks(samples, batchSize)) {
      const batch = Batch.make({ pad: 0 })(part)
      const { ids, mask } = tensors(batch)
      const sum = tf.tidy(() => tf.neg(tf.sum(tf.mul(Scoring.tokenLogprobs(policy, { entropy: false })(ids).logprobs, mask))))
      nll += sum.dataSync()[0]!
      count += batch.actionMask.reduce((a, b) => a + b, 0)
      tf.dispose([ids, mask, sum])
    }
    return count === 0 ? Number.NaN : nll / count
  }
