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
        const keep = _.nonDegenerate(ids, rows.map(([, r]) => r))
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
})
