/**
 * Loss aggregation: how per-token losses `[batch, time]` become one scalar. The four modes of
 * verl's `agg_loss` (core_algos.py); the choice changes how long and short sequences weigh.
 *
 * | mode | formula |
 * |---|---|
 * | `token-mean` | sum_{i,t} m L / sum_{i,t} m |
 * | `seq-mean-token-sum` | (1/B') sum_i sum_t m L, B' = rows with any unmasked token |
 * | `seq-mean-token-mean` | (1/B') sum_i (sum_t m L / sum_t m) |
 * | `seq-mean-token-sum-norm` | sum_{i,t} m L / scale, scale = `time` unless given (Dr. GRPO; no division by B, as in verl) |
 *
 * @since 0.1.0
 */
import * as tf from '@tensorflow/tfjs'
import { weights, type Mode } from './AggregationMode.js'

export {
  /** @category codecs @since 0.1.0 */
  Mode,
  /** @category constructors @since 0.1.0 */
  defaultMode,
  /** @category combinators @since 0.2.0 */
  weights
} from './AggregationMode.js'

/**
 * `sum(x * w)`: a per-token term aggregated with weights from {@link weights}. Differentiable in
 * `x`; the caller owns the scalar.
 *
 * @category combinators
 * @since 0.5.0
 */
export const weighted = (x: tf.Tensor, w: tf.Tensor): tf.Scalar => tf.tidy(() => tf.sum(tf.mul(x, w)) as tf.Scalar)

/**
 * Aggregates `loss` over `mask` with the weights of `mode` (the mask is read on the host): a
 * convenience over {@link weights} and {@link weighted}, the path training takes. Differentiable in
 * `loss`; the caller owns the scalar.
 *
 * @param mode see the table above
 * @param scale `seq-mean-token-sum-norm` divisor (default: `time`, the padded length)
 * @returns `(loss [batch, time], mask [batch, time] float32) => scalar`
 * @example
 * import * as tf from '@tensorflow/tfjs'
 * import { Aggregation } from '@mtrl/trainer-rl'
 * const l = Aggregation.aggregate('token-mean')(tf.tensor2d([[1, 3]]), tf.tensor2d([[1, 0]])) // 1
 * @category combinators
 * @since 0.1.0
 */
export const aggregate =
  (mode: Mode, scale?: number) =>
  (loss: tf.Tensor, mask: tf.Tensor): tf.Scalar => {
    if (loss.rank !== 2 || mask.rank !== 2) throw new Error(`Aggregation.aggregate: expected [batch, time] tensors, got ranks ${loss.rank} and ${mask.rank}`)
    const [batch, time] = mask.shape as [number, number]
    const w = weights(mode, scale)(Float32Array.from(mask.dataSync()), batch, time)
    return tf.tidy(() => weighted(loss, tf.tensor2d(w, [batch, time])))
  }
