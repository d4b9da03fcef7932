import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Grpo from '../src/Grpo.js'
import * as _ from '../src/Rloo.js'
import type { TokenBatch } from '../src/TokenBatch.js'
import { closeTo, tokenBatch } from './arbitraries.js'

const perRow = (x: Float32Array, input: TokenBatch): number[] =>
  Array.from({ length: input.batch }, (_, b) => {
    for (let i = b * input.time; i < (b + 1) * input.time; i++) if (input.actionMask[i] === 1) return x[i]!
    return 0
  })

describe('Rloo', () => {
  it('subtracts the mean of the other members: hand-worked example', () => {
    // group a: R = [1, 0, 0]: A = [1 - (0+0)/2, 0 - (1+0)/2, 0 - (1+0)/2] = [1, -0.5, -0.5]
    // group b: R = [3, 1] (row 3 earns 1 + 2 over two tokens): A = [3 - 1, 1 - 3] = [2, -2]... row 3 is R = 3
    // group c: one row -> 0
    const out = _.estimate({})({
      batch: 6,
      time: 2,
      tokenRewards: Float32Array.of(0, 1, 0, 0, 0, 0, 1, 2, 0, 1, 0, 5),
      actionMask: Float32Array.of(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1),
      groupIds: ['a', 'a', 'a', 'b', 'b', 'c']
    })
    expect(Array.from(out.advantages)).toEqual([1, 1, -0.5, -0.5, -0.5, -0.5, 2, 2, -2, -2, 0, 0])
    expect(Array.from(out.returns)).toEqual([1, 1, 0, 0, 0, 0, 3, 3, 1, 1, 0, 5])
  })

  it('advantages sum to zero in every group', () => {
    fc.assert(
      fc.property(tokenBatch({ actionInEveryRow: true }), (input) => {
        const a = perRow(_.estimate({})(input).advantages, input)
        const sums = new Map<string, number>()
        a.forEach((x, b) => sums.set(input.groupIds![b]!, (sums.get(input.groupIds![b]!) ?? 0) + x))
        return [...sums.values()].every((s) => Math.abs(s) < 1e-3)
      })
    )
  })

  it('is unchanged by a constant reward shift', () => {
    fc.assert(
      fc.property(tokenBatch({ actionInEveryRow: true }), fc.integer({ min: -10, max: 10 }), (input, c) => {
        const tokenRewards = Float32Array.from(input.tokenRewards)
        for (let b = 0; b < input.batch; b++) tokenRewards[b * input.time + input.time - 1]! += c
        const a = _.estimate({})(input).advantages
        const b = _.estimate({})({ ...input, tokenRewards }).advantages
        return closeTo(b, a, 1e-4)
      })
    )
  })

  it('is n / (n - 1) times the Dr. GRPO advantage', () => {
    fc.assert(
      fc.property(tokenBatch({ actionInEveryRow: true }), (input) => {
        const rloo = perRow(_.estimate({})(input).advantages, input)
        const dr = perRow(Grpo.estimate({ normalizeByStd: false, epsilon: 1e-6 })(input).advantages, input)
        const n = (b: number): number => input.groupIds!.filter((g) => g === input.groupIds![b]).length
        return closeTo(
          rloo,
          dr.map((x, b) => (n(b) === 1 ? 0 : (x * n(b)) / (n(b) - 1))),
          1e-4
        )
      })
    )
  })

  it('requires groupIds', () => {
    expect(() => _.estimate({})({ batch: 1, time: 1, tokenRewards: Float32Array.of(1), actionMask: Float32Array.of(1) })).toThrow(/groupIds is required/)
  })
})
