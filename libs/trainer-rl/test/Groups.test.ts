import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Groups.js'

const row = (env: string, seed: number, groupId: string) => ({ env, seed, groupId })

describe('Groups', () => {
  it('accepts groups of the right size with one task each', () => {
    expect(E.isRight(_.check(2)([row('a', 1, 'a:1'), row('a', 1, 'a:1'), row('a', 2, 'a:2'), row('a', 2, 'a:2')]))).toBe(true)
  })
  it('rejects a group that mixes seeds', () => {
    expect(_.check(2)([row('a', 1, 'g'), row('a', 2, 'g')])).toEqual(E.left(expect.stringContaining('mixes tasks')))
  })
  it('rejects one task split across group ids (GRPO would become REINFORCE)', () => {
    expect(_.check(1)([row('a', 1, 'x'), row('a', 1, 'y')])).toEqual(E.left(expect.stringContaining('appears under group ids')))
  })
  it('rejects a group of the wrong size', () => {
    expect(_.check(3)([row('a', 1, 'a:1'), row('a', 1, 'a:1')])).toEqual(E.left(expect.stringContaining('has 2 members')))
  })
  it('drops exactly the groups whose outcomes are all equal', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(3), fc.constantFrom(0, 1)), { minLength: 1, maxLength: 20 }), (rows) => {
        const ids = rows.map(([g]) => `g${g}`)
        const keep = _.nonDegenerate(
          ids,
          rows.map(([, r]) => r)
        )
        rows.forEach(([g], i) => {
          const group = rows.filter(([h]) => h === g).map(([, r]) => r)
          const varied = group.length === 1 || new Set(group).size > 1
          expect(keep[i]).toBe(varied)
        })
      })
    )
  })

  it('firstGroups keeps the selected rows of the first n selected groups, in order of first appearance, and nothing else', () => {
    const ids = ['a', 'b', 'a', 'c', 'b', 'd', 'c', 'd']
    const keep = [true, false, true, true, false, true, true, true]
    expect(_.firstGroups(2, keep, ids)).toEqual([true, false, true, true, false, false, true, false])
    expect(_.firstGroups(0, keep, ids)).toEqual(ids.map(() => false))
    expect(_.firstGroups(9, keep, ids)).toEqual(keep)
  })
  it('firstGroups never keeps a row the selection dropped, keeps at most n groups, and whole groups (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 6 }), fc.boolean()), { maxLength: 30 }), fc.integer({ min: 0, max: 7 }), (rows, n) => {
        const ids = rows.map(([g]) => `g${g}`)
        const keepGroup = new Map(rows.map(([g, k]) => [`g${g}`, k]))
        const keep = ids.map((id) => keepGroup.get(id)!)
        const out = _.firstGroups(n, keep, ids)
        out.forEach((k, i) => k && expect(keep[i]).toBe(true))
        const groups = new Set(ids.filter((_id, i) => out[i]))
        expect(groups.size).toBe(Math.min(n, new Set(ids.filter((_id, i) => keep[i])).size))
        ids.forEach((id, i) => keep[i] && expect(out[i]).toBe(groups.has(id)))
      })
    )
  })

  const variance = (xs: ReadonlyArray<number>): number => {
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length
    return xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length
  }
  const subsets = (n: number, m: number): ReadonlyArray<ReadonlyArray<number>> =>
    m === 0 ? [[]] : n < m ? [] : [...subsets(n - 1, m), ...subsets(n - 1, m - 1).map((s) => [...s, n - 1])]

  it('maxVarianceSubset keeps the extremes: hand-derived cases', () => {
    // one win in eight: the win and three losses (the earliest, ties keep the earlier row)
    expect(_.maxVarianceSubset(4, [0, 0, 0, 1, 0, 0, 0, 0])).toEqual([0, 1, 2, 3])
    // two wins of dense returns 2 and 3 among losses: both wins and the two lowest losses
    expect(_.maxVarianceSubset(4, [0.5, 3, -0.2, 0.1, 2, 0.3])).toEqual([1, 2, 3, 4])
    // all equal: the first m
    expect(_.maxVarianceSubset(2, [1, 1, 1])).toEqual([0, 1])
    // m >= n: everything; m = 0: nothing
    expect(_.maxVarianceSubset(5, [3, 1])).toEqual([0, 1])
    expect(_.maxVarianceSubset(0, [3, 1])).toEqual([])
  })
  it('maxVarianceSubset reaches the variance of the best subset of size m (property, brute force)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -4, max: 4 }), { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 8 }), (xs, m0) => {
        const m = Math.min(m0, xs.length)
        const picked = _.maxVarianceSubset(m, xs)
        expect(picked.length).toBe(m)
        expect(new Set(picked).size).toBe(m)
        const best = Math.max(...subsets(xs.length, m).map((s) => variance(s.map((i) => xs[i]!))))
        expect(variance(picked.map((i) => xs[i]!))).toBeCloseTo(best, 9)
      })
    )
  })
  it('downsample caps each group at m of its selected rows and never revives a dropped row', () => {
    const ids = ['a', 'a', 'a', 'a', 'b', 'b', 'b', 'b', 'c', 'c']
    const outcomes = [0, 1, 0, 0, 1, 1, 1, 0, 0, 0]
    const keep = [true, true, true, true, true, true, true, true, false, false]
    // a: the win and the first loss; b: the loss and the first win; c: dropped before
    expect(_.downsample(2, keep, ids, outcomes)).toEqual([true, true, false, false, true, false, false, true, false, false])
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 3 }), fc.boolean()), { maxLength: 30 }),
        fc.integer({ min: 1, max: 5 }),
        (rows, m) => {
          const ids = rows.map(([g]) => `g${g}`)
          const out = _.downsample(
            m,
            rows.map(([, , k]) => k),
            ids,
            rows.map(([, r]) => r)
          )
          out.forEach((k, i) => k && expect(rows[i]![2]).toBe(true))
          for (const id of new Set(ids)) {
            const selected = ids.filter((g, i) => g === id && rows[i]![2]).length
            expect(ids.filter((g, i) => g === id && out[i]).length).toBe(Math.min(m, selected))
          }
        }
      )
    )
  })
})
