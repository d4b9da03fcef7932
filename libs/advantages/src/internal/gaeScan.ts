/**
 * The reverse GAE scan over the action tokens of each row, skipping masked tokens (verl's
 * `compute_gae_advantage_return` after PR #2337). Writes advantages and returns on action
 * tokens and leaves the rest of the outputs untouched (callers pass zeroed arrays).
 *
 *   nextV = bootstrap[b], lastA = 0; for t = T-1 .. 0 with mask = 1:
 *     delta = r_t + gamma * nextV - V_t ;  lastA = delta + gamma * lambda * lastA ;  nextV = V_t
 *     A_t = lastA ;  returns_t = lastA + V_t
 *
 * Absent `values` are zeros. Arithmetic is float64 (JS numbers); outputs are rounded to float32.
 */
export interface ScanInput {
  readonly batch: number
  readonly time: number
  readonly tokenRewards: Float32Array
  readonly actionMask: Float32Array
  readonly values?: Float32Array | undefined
  readonly bootstrapValues?: Float32Array | undefined
}

export const gaeScan = (input: ScanInput, gamma: number, lambda: number, advantages: Float32Array, returns: Float32Array): void => {
  const { batch, time, tokenRewards, actionMask, values, bootstrapValues } = input
  const decay = gamma * lambda
  for (let b = 0; b < batch; b++) {
    let nextV = bootstrapValues === undefined ? 0 : bootstrapValues[b]!
    let lastA = 0
    const start = b * time
    for (let i = start + time - 1; i >= start; i--) {
      if (actionMask[i] !== 1) continue
      const v = values === undefined ? 0 : values[i]!
      lastA = tokenRewards[i]! + gamma * nextV - v + decay * lastA
      nextV = v
      advantages[i] = lastA
      returns[i] = lastA + v
    }
  }
}
