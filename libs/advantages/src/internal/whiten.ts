/**
 * `masked_whiten` as verl defines it (verl/utils/torch_functional.py): mean and **sample**
 * variance (Bessel, n - 1) over the masked entries, `x <- (x - mean) / sqrt(var + 1e-8)`.
 * Sums run in float64. Off-mask entries are set to 0. With fewer than two masked entries the
 * variance is undefined (verl raises); here the entries are only centred (so one entry -> 0).
 */
export const WHITEN_EPSILON = 1e-8

export const whitenInPlace = (x: Float32Array, mask: Float32Array): void => {
  // Two branch-free passes (mask is 0/1). Moments use sums shifted by the first masked entry
  // (the "shifted data" algorithm), which keeps sum-of-squares cancellation small in float64.
  const n = x.length
  let shift = 0
  for (let i = 0; i < n; i++)
    if (mask[i] === 1) {
      shift = x[i]!
      break
    }
  let count = 0
  let sum = 0
  let squares = 0
  for (let i = 0; i < n; i++) {
    const m = mask[i]!
    const d = (x[i]! - shift) * m
    count += m
    sum += d
    squares += d * d
  }
  if (count === 0) return
  const mean = shift + sum / count
  const variance = count > 1 ? Math.max(0, (squares - (sum * sum) / count) / (count - 1)) : 0
  const scale = count > 1 ? 1 / Math.sqrt(variance + WHITEN_EPSILON) : 1
  // `+ 0` turns the -0 of masked negative entries into 0
  for (let i = 0; i < n; i++) x[i] = (x[i]! - mean) * scale * mask[i]! + 0
}
