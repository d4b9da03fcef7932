/**
 * The aggregation modes of a per-token loss and their per-token weights, on the host: the
 * settings half of `Aggregation` (which adds the tensor ops). Tensor-free.
 *
 * | mode | formula |
 * |---|---|
 * | `token-mean` | sum_{i,t} m L / sum_{i,t} m |
 * | `seq-mean-token-sum` | (1/B') sum_i sum_t m L, B' = rows with any unmasked token |
 * | `seq-mean-token-mean` | (1/B') sum_i (sum_t m L / sum_t m) |
 * | `seq-mean-token-sum-norm` | sum_{i,t} m L / scale, scale = `time` unless given (Dr. GRPO; no division by B, as in verl) |
 *
 * @since 0.7.0
 */
import * as t from 'io-ts'

/**
 * @category codecs
 * @since 0.1.0
 */
export const Mode = t.keyof({
  'token-mean': null,
  'seq-mean-token-sum': null,
  'seq-mean-token-mean': null,
  'seq-mean-token-sum-norm': null
})
/** @category models @since 0.1.0 */
export type Mode = t.TypeOf<typeof Mode>

/** @category constructors @since 0.1.0 */
export const defaultMode: Mode = 'token-mean'

/**
 * An aggregation as per-token weights, on the host: the loss is `sum_{i,t} w[i,t] L[i,t]`
 * ({@link weighted}). This is the form training runs: a minibatch cut into shards keeps the whole
 * minibatch's weights, so the shards' weighted sums add up to its loss (data-parallel updates,
 * `@mtrl/replicas`; micro-batches).
 *
 * @param mode see the table above
 * @param scale `seq-mean-token-sum-norm` divisor (default: `time`)
 * @returns `(mask [batch * time], row-major, batch, time) => weights [batch * time]`
 * @example
 * import { Aggregation } from '@mtrl/trainer-rl'
 * Aggregation.weights('seq-mean-token-mean')(Float32Array.of(1, 1, 1, 0), 2, 2) // [0.25, 0.25, 0.5, 0]
 * @category combinators
 * @since 0.2.0
 */
export const weights =
  (mode: Mode, scale?: number) =>
  (mask: Float32Array, batch: number, time: number): Float32Array => {
    if (mask.length !== batch * time) throw new Error(`Aggregation.weights: a mask of ${mask.length} for ${batch} x ${time}`)
    const counts = Array.from({ length: batch }, (_, b) => mask.subarray(b * time, (b + 1) * time).reduce((a, x) => a + x, 0))
    const rows = Math.max(1, counts.filter((c) => c > 0).length)
    const total = Math.max(
      1,
      counts.reduce((a, c) => a + c, 0)
    )
    const out = new Float32Array(batch * time)
    for (let b = 0; b < batch; b++) {
      const per =
        mode === 'token-mean'
          ? 1 / total
          : mode === 'seq-mean-token-sum'
            ? 1 / rows
            : mode === 'seq-mean-token-mean'
              ? 1 / (Math.max(1, counts[b]!) * rows)
              : 1 / (scale ?? time)
      for (let t = 0; t < time; t++) out[b * time + t] = mask[b * time + t]! * per
    }
    return out
  }
