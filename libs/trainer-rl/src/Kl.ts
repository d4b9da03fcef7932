/**
 * KL divergence to a frozen reference policy, estimated per token from log-probs of the sampled
 * tokens (Schulman, "Approximating KL divergence", 2020, http://joschu.net/blog/kl-approx.html),
 * as verl `kl_penalty_forward`. With `d = logp - logp_ref`:
 *
 * | name | value |
 * |---|---|
 * | `k1` | d |
 * | `k2` | d^2 / 2 |
 * | `k3` | exp(-d) + d - 1, computed as exp(k) - k - 1 with k = clamp(-d, -20, 20), clamped to [-10, 10] |
 *
 * k3 is non-negative and low-variance (verl's `low_var_kl`, the usual in-loss choice); k1 is the
 * usual in-reward choice. Placement (`reward`: `r_t -= beta KL_t`, or `loss`: `+ beta mean KL`)
 * and the coefficient's controller are in `KlSettings` (re-exported here) and the trainer config.
 *
 * @since 0.1.0
 */
import * as tf from '@tensorflow/tfjs'

export {
  /** @category codecs @since 0.1.0 */
  Estimator,
  /** @category codecs @since 0.1.0 */
  Placement,
  /** @category codecs @since 0.5.0 */
  Settings,
  /** @category constants @since 0.5.0 */
  none
} from './KlSettings.js'
import type { Estimator } from './KlSettings.js'

/**
 * Per-token KL estimate, `[batch, time]` in and out. Runs in `tf.tidy`; differentiable in
 * `logprobs`; the caller owns the result.
 *
 * @category estimators
 * @since 0.1.0
 */
export const estimate =
  (estimator: Estimator) =>
  (logprobs: tf.Tensor, refLogprobs: tf.Tensor): tf.Tensor =>
    tf.tidy(() => {
      const d = tf.sub(logprobs, refLogprobs)
      switch (estimator) {
        case 'k1':
          return d
        case 'k2':
          return tf.mul(0.5, tf.square(d))
        case 'k3': {
          const k = tf.clipByValue(tf.neg(d), -20, 20)
          return tf.clipByValue(tf.sub(tf.sub(tf.exp(k), k), 1), -10, 10)
        }
      }
    })

/**
 * The same estimate over plain arrays (no gradient), for the in-reward placement.
 *
 * @category estimators
 * @since 0.1.0
 */
export const estimateArray =
  (estimator: Estimator) =>
  (logprobs: Float32Array, refLogprobs: Float32Array): Float32Array => {
    if (logprobs.length !== refLogprobs.length) throw new Error(`Kl.estimateArray: ${logprobs.length} vs ${refLogprobs.length} entries`)
    const out = new Float32Array(logprobs.length)
    for (let i = 0; i < out.length; i++) {
      const d = logprobs[i]! - refLogprobs[i]!
      switch (estimator) {
        case 'k1':
          out[i] = d
          break
        case 'k2':
          out[i] = 0.5 * d * d
          break
        case 'k3': {
          const k = Math.min(20, Math.max(-20, -d))
          out[i] = Math.min(10, Math.max(-10, Math.exp(k) - k - 1))
          break
        }
      }
    }
    return out
  }
