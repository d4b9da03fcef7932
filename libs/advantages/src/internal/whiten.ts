/**
 * `masked_whiten` as verl defines it (verl/utils/torch_functional.py): mean and **sample**
 * variance (Bessel, n - 1) over the masked entries, `x <- (x - mean) / sqrt(var + 1e-8)`.
 * Sums run in float64. Off-mask entries are set to 0. With fewer than two masked entries the
 * variance is undefined (verl raises); here the entries are only centred (so one entry -> 0).
 */
export const WHITEN_EPSILON = 1e-8

export const whitenInPlace = (x: Float32Array, mask: Float32Array): void => {
  const n = x.length
  let count = 0
  let sum = 0
  for (let i = 0; i < n; i++) {
    if (mask[i] === 1) {
      count++
      sum += x[i]!
    }
  }
  if (count === 0) return
  const mean = sum / count
  let squares = 0
  for (let i = 0; i < n; i++) {
    if (mask[i] === 1) {
      const d = x[i]! - mean
      squares += d * d
    }
  }
  const scale = count > 1 ? 1 / Math.sqrt(squares / (count - 1) + WHITEN_EPSILON) : 1
  for (let i = 0; i < n; i++) x[i] = mask[i] === 1 ? (x[i]! - mean) * scale : 0
}
