/**
 * Group bookkeeping for group-relative estimators: which rows answer the same task.
 */
import type { TokenBatch } from '../TokenBatch.js'

export interface Groups {
  /** Group ordinal of each row, `[batch]`. */
  readonly groupOf: Int32Array
  /** Size of each group, by ordinal. */
  readonly sizes: Int32Array
  /** Sum of the row outcomes of each group, by ordinal (float64). */
  readonly sums: Float64Array
}

/**
 * Indexes rows by `groupIds` and sums their outcomes. Throws (naming the estimator) when the
 * ids are missing, of the wrong length, or empty strings.
 */
export const groupsOf = (estimator: string, input: TokenBatch, outcomes: Float64Array): Groups => {
  const { groupIds, batch } = input
  if (groupIds === undefined) throw new Error(`${estimator}: invalid input: groupIds is required (one id per row)`)
  if (groupIds.length !== batch) throw new Error(`${estimator}: invalid input: groupIds: expected ${batch} entries (one per row), got ${groupIds.length}`)
  const ordinals = new Map<string, number>()
  const groupOf = new Int32Array(batch)
  groupIds.forEach((id, b) => {
    if (typeof id !== 'string' || id === '')
      throw new Error(`${estimator}: invalid input: groupIds[${b}]: expected a non-empty string, got ${JSON.stringify(id)}`)
    let g = ordinals.get(id)
    if (g === undefined) {
      g = ordinals.size
      ordinals.set(id, g)
    }
    groupOf[b] = g
  })
  const sizes = new Int32Array(ordinals.size)
  const sums = new Float64Array(ordinals.size)
  for (let b = 0; b < batch; b++) {
    const g = groupOf[b]!
    sizes[g]! += 1
    sums[g]! += outcomes[b]!
  }
  return { groupOf, sizes, sums }
}
