/**
 * fast-check arbitraries of estimator inputs (test-only, not a test file).
 */
import fc from 'fast-check'
import type { TokenBatch } from '../src/TokenBatch.js'

export interface BatchOptions {
  readonly maxBatch?: number
  readonly maxTime?: number
  /** Every row has at least one action token. */
  readonly actionInEveryRow?: boolean
}

const small = fc.double({ min: -4, max: 4, noNaN: true, noDefaultInfinity: true })

/**
 * A valid batch: random mask, rewards only on action tokens, values everywhere, non-decreasing
 * turn indices, groups drawn from three ids, bootstrap values.
 */
export const tokenBatch = (options: BatchOptions = {}): fc.Arbitrary<TokenBatch> => {
  const { maxBatch = 6, maxTime = 12, actionInEveryRow = false } = options
  return fc
    .record({ batch: fc.integer({ min: 1, max: maxBatch }), time: fc.integer({ min: 1, max: maxTime }) })
    .chain(({ batch, time }) =>
      fc.record({
        batch: fc.constant(batch),
        time: fc.constant(time),
        mask: fc.array(fc.boolean(), { minLength: batch * time, maxLength: batch * time }),
        rewards: fc.array(small, { minLength: batch * time, maxLength: batch * time }),
        values: fc.array(small, { minLength: batch * time, maxLength: batch * time }),
        turnSteps: fc.array(fc.boolean(), { minLength: batch * time, maxLength: batch * time }),
        groups: fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: batch, maxLength: batch }),
        bootstrap: fc.array(small, { minLength: batch, maxLength: batch })
      })
    )
    .map(({ batch, time, mask, rewards, values, turnSteps, groups, bootstrap }) => {
      const actionMask = Float32Array.from(mask, (m) => (m ? 1 : 0))
      if (actionInEveryRow) for (let b = 0; b < batch; b++) actionMask[b * time + time - 1] = 1
      const tokenRewards = Float32Array.from(rewards, (r, i) => (actionMask[i] === 1 ? r : 0))
      const turnIndex = new Int32Array(batch * time)
      for (let b = 0; b < batch; b++) {
        let turn = 0
        for (let t = 0; t < time; t++) {
          if (t > 0 && turnSteps[b * time + t]) turn++
          turnIndex[b * time + t] = turn
        }
      }
      return {
        batch,
        time,
        tokenRewards,
        actionMask,
        values: Float32Array.from(values),
        turnIndex,
        groupIds: groups,
        bootstrapValues: Float32Array.from(bootstrap)
      }
    })
}

/** Mean and sample std of `x` over the entries where `mask` is 1. */
export const maskedMoments = (x: Float32Array, mask: Float32Array): { readonly count: number; readonly mean: number; readonly std: number } => {
  let count = 0
  let sum = 0
  x.forEach((v, i) => {
    if (mask[i] === 1) {
      count++
      sum += v
    }
  })
  const mean = sum / count
  let squares = 0
  x.forEach((v, i) => {
    if (mask[i] === 1) squares += (v - mean) ** 2
  })
  return { count, mean, std: Math.sqrt(squares / (count - 1)) }
}

/** `expect(...).toBeCloseTo` for whole arrays, with an absolute tolerance. */
export const closeTo = (actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance = 1e-5): boolean =>
  actual.length === expected.length && Array.from(actual).every((a, i) => Math.abs(a - expected[i]!) <= tolerance * Math.max(1, Math.abs(expected[i]!)))

/** Copy of a batch with some fields replaced. */
export const withFields = (input: TokenBatch, fields: Partial<TokenBatch>): TokenBatch => ({ ...input, ...fields })
