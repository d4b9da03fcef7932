import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Grpo.js'
import type { TokenBatch } from '../src/TokenBatch.js'
import { tokenBatch } from './arbitraries.js'

/** Per-row value of a `[batch, time]` output: the value on the row's first action token (0 if none). */
const perRow = (x: Float32Array, input: TokenBatch): number[] =>
  Array.from({ length: input.batch }, (_, b) => {
    for (let i = b * input.time; i < (b + 1) * input.time; i++) if (input.actionMask[i] === 1) return x[i]!
    return 0
  })

/** Adds `c` to each row's outcome (on its last action token). */
const shift = (input: TokenBatch, c: number): TokenBatch => {
  const tokenRewards = Float32Array.from(input.tokenRewards)
  for (let b = 0; b < input.batch; b++) tokenRewards[b * input.time + input.time - 1]! += c
  return { ...input, tokenRewards }
}

const sumsByGroup = (values: number[], groupIds: ReadonlyArray<string>): number[] => {
  const sums = new Map<string, number>()
  values.forEach((v, b) => sums.set(groupIds[b]!, (sums.get(groupIds[b]!) ?? 0) + v))
  return [...sums.values()]
}

describe('Grpo', () => {
  it('normalises by the sample std: hand-worked example', () => {
    // group a: R = [1, 0, 0] (row 0 earns 0.5 + 0.5 over two action tokens; the obs token is skipped)
    //   mean = 1/3; sample var = ((2/3)^2 + 2*(1/3)^2) / 2 = 1/3; std = 0.57735
    //   A = [ (2/3)/0.57735, (-1/3)/0.57735, same ] = [1.1547, -0.57735, -0.57735]
    //   (the population std 0.4714 would give 1.4142)
    // group b: one row -> 0
    const out = _.estimate(_.defaultOptions)({
      batch: 4,
      time: 3,
      tokenRewards: Float32Array.of(0.5, 0, 0.5, 0, 0, 0, 0, 0, 0, 0, 0, 7),
      actionMask: Float32Array.of(1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1),
      groupIds: ['a', 'a', 'a', 'b']
    })
    const a = Array.from(out.advantages)
    expect(a[0]).toBeCloseTo(1.1547, 4)
    expect(a[1]).toBe(0)
    expect(a[2]).toBeCloseTo(1.1547, 4)
    expect(a.slice(3, 6).every((x) => Math.abs(x + 0.57735) < 1e-4)).toBe(true)
    expect(a[6]).toBeCloseTo(-0.57735, 4)
    expect(a[7]).toBeCloseTo(-0.57735, 4)
    expect(a[8]).toBe(0)
    expect(a.slice(9)).toEqual([0, 0, 0])
    expect(Array.from(out.returns.slice(9))).toEqual([7, 7, 7])
  })

  it('without std normalisation is Dr. GRPO: R - mean', () => {
    const out = _.estimate({ normalizeByStd: false, epsilon: 1e-6 })({
      batch: 3,
      time: 1,
      tokenRewards: Float32Array.of(3, 1, 2),
      actionMask: Float32Array.of(1, 1, 1),
      groupIds: ['g', 'g', 'g']
    })
    expect(Array.from(out.advantages)).toEqual([1, -1, 0])
  })

  it('advantages sum to zero in every group', () => {
    fc.assert(
      fc.property(tokenBatch({ actionInEveryRow: true }), fc.boolean(), (input, normalizeByStd) => {
        const out = _.estimate({ normalizeByStd, epsilon: 1e-6 })(input)
        return sumsByGroup(perRow(out.advantages, input), input.groupIds!).every((s) => Math.abs(s) < 1e-3)
      })
    )
  })

  it('is unchanged by a constant reward shift', () => {
    fc.assert(
      fc.property(tokenBatch({ actionInEveryRow: true }), fc.integer({ min: -10, max: 10 }), fc.boolean(), (input, c, normalizeByStd) => {
        const options = { normalizeByStd, epsilon: 1e-6 }
        const a = perRow(_.estimate(options)(input).advantages, input)
        const b = perRow(_.estimate(options)(shift(input, c)).advantages, input)
        // float32 rewards round the shifted sums by ~1e-6: skip groups whose spread is below that scale
        const outcomes = Array.from({ length: input.batch }, (_, row) =>
          input.tokenRewards.subarray(row * input.time, (row + 1) * input.time).reduce((x, y) => x + y, 0)
        )
        a.forEach((x, row) => {
          const group = outcomes.filter((__, j) => input.groupIds![j] === input.groupIds![row])
          const spread = Math.max(...group) - Math.min(...group)
          if (group.length === 1 || spread > 1e-2) expect(b[row]).toBeCloseTo(x, 3)
        })
      })
    )
  })

  it('is scale-free: a group that differs by one -0.1 penalty weighs as much as one that differs by a win; Dr. GRPO weighs each by its size', () => {
    // rl-lift's dense reward: four losing episodes of one game, one with an invalid action (-0.1),
    // beside four episodes of another game of which one wins (+1). GRPO's std division hands both
    // groups advantages of the same size: the update pushes as hard on "avoid that one invalid
    // action" as on "do what won". Dr. GRPO (no std division) keeps the ratio of the returns (1:10).
    const input: TokenBatch = {
      batch: 8,
      time: 1,
      tokenRewards: Float32Array.of(-0.1, 0, 0, 0, 1, 0, 0, 0),
      actionMask: new Float32Array(8).fill(1),
      groupIds: ['lost', 'lost', 'lost', 'lost', 'won', 'won', 'won', 'won']
    }
    const grpo = Array.from(_.estimate(_.defaultOptions)(input).advantages)
    expect(grpo[0]).toBeCloseTo(-1.5, 4)
    expect(grpo[4]).toBeCloseTo(1.5, 4)
    grpo.slice(1, 4).forEach((a) => expect(a).toBeCloseTo(0.5, 4))
    grpo.slice(5).forEach((a) => expect(a).toBeCloseTo(-0.5, 4))
    const dr = Array.from(_.estimate({ normalizeByStd: false, epsilon: 1e-6 })(input).advantages)
    expect(dr[0]).toBeCloseTo(-0.075, 6)
    expect(dr[4]).toBeCloseTo(0.75, 6)
    // in general: scaling a group's rewards leaves GRPO's advantages (above epsilon) unchanged, and scales Dr. GRPO's
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -4, max: 4 }), { minLength: 2, maxLength: 6 }), fc.double({ min: 0.01, max: 100, noNaN: true }), (rewards, c) => {
        fc.pre(new Set(rewards).size > 1)
        const batchOf = (scale: number): TokenBatch => ({
          batch: rewards.length,
          time: 1,
          tokenRewards: Float32Array.from(rewards, (r) => r * scale),
          actionMask: new Float32Array(rewards.length).fill(1),
          groupIds: rewards.map(() => 'g')
        })
        const g1 = _.estimate(_.defaultOptions)(batchOf(1)).advantages
        const gc = _.estimate(_.defaultOptions)(batchOf(c)).advantages
        g1.forEach((a, i) => expect(gc[i]).toBeCloseTo(a, 3))
        const d1 = _.estimate({ normalizeByStd: false, epsilon: 1e-6 })(batchOf(1)).advantages
        const dc = _.estimate({ normalizeByStd: false, epsilon: 1e-6 })(batchOf(c)).advantages
        d1.forEach((a, i) => expect(dc[i]! / c).toBeCloseTo(a, 3))
      })
    )
  })

  it('rejects group bookkeeping that does not match the batch', () => {
    const input = { batch: 2, time: 1, tokenRewards: Float32Array.of(1, 0), actionMask: Float32Array.of(1, 1) }
    expect(() => _.estimate(_.defaultOptions)(input)).toThrow(/groupIds is required/)
    expect(() => _.estimate(_.defaultOptions)({ ...input, groupIds: ['a'] })).toThrow(/groupIds: expected 2 entries \(one per row, batch 2\), got 1/)
    expect(() => _.estimate(_.defaultOptions)({ ...input, groupIds: ['a', ''] })).toThrow(/groupIds\[1\]/)
  })
})
