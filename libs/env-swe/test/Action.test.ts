import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Action.js'

const name = fc.stringMatching(/^[a-z][a-z0-9_./-]{0,12}$/)
const action: fc.Arbitrary<_.Action> = fc.oneof(
  name.map((dir) => ({ _tag: 'Ls' as const, dir })),
  name.map((file) => ({ _tag: 'Cat' as const, file })),
  fc
    .tuple(name, fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 50 }))
    .map(([file, a, n]) => ({ _tag: 'Cat' as const, file, range: [a, a + n] as const })),
  fc
    .tuple(
      fc.stringMatching(/^[a-z =<>()]{1,10}$/).filter((s) => s.trim() === s && s !== ''),
      name
    )
    .map(([pattern, dir]) => ({ _tag: 'Grep' as const, pattern, dir })),
  fc.constant({ _tag: 'RunTests' as const }),
  name.map((n) => ({ _tag: 'RunTests' as const, name: n })),
  fc.constant({ _tag: 'Submit' as const }),
  fc.tuple(name, fc.stringMatching(/^[a-z<=; ]{1,20}$/), fc.stringMatching(/^[a-z<=; ]{0,20}$/)).map(([file, search, replace]) => ({
    _tag: 'Edit' as const,
    edit: { file, blocks: [{ search, replace }] }
  }))
)

describe('Action', () => {
  it('parse inverts render', () => {
    fc.assert(
      fc.property(action, (a) => {
        expect(_.parse(_.render(a))).toEqual(E.right(a))
      })
    )
  })

  it('parses the documented forms', () => {
    expect(_.parse('ls')).toEqual(E.right({ _tag: 'Ls', dir: '.' }))
    expect(_.parse('cat src/a.js 3-9')).toEqual(E.right({ _tag: 'Cat', file: 'src/a.js', range: [3, 9] }))
    expect(_.parse('grep "a b" src')).toEqual(E.right({ _tag: 'Grep', pattern: 'a b', dir: 'src' }))
    expect(_.parse('run_tests evicts the least')).toEqual(E.right({ _tag: 'RunTests', name: 'evicts the least' }))
    expect(_.parse('  submit  \n')).toEqual(E.right({ _tag: 'Submit' }))
  })

  it('rejects malformed actions with a reason', () => {
    for (const bad of ['', 'rm -rf /', 'cat', 'cat a.js 9', 'ls a b', 'submit now', 'edit a.js', 'edit a.js\nno blocks', 'ls\nextra']) {
      expect(E.isLeft(_.parse(bad)), bad).toBe(true)
    }
  })
})
