import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Corpus from '../src/Corpus.js'
import * as _ from '../src/Mutation.js'

const allSites = Corpus.projects.flatMap((p) => p.sources.flatMap((f) => _.sitesOf(f, p.files[f]!).map((m) => [p, m] as const)))

describe('Mutation', () => {
  it('finds every operator somewhere in the corpus', () => {
    const ops = new Set(allSites.map(([, m]) => m.operator))
    expect([...ops].sort()).toEqual(['dropGuard', 'flipComparison', 'offByOne', 'swapArguments', 'wrongConstant', 'wrongReturn'])
  })

  it('applying a site changes exactly its span, and the inverse restores the original', () => {
    fc.assert(
      fc.property(fc.constantFrom(...allSites), ([p, m]) => {
        const original = p.files[m.file]!
        const mutant = _.applyToText([m])(original)
        expect(mutant).not.toBe(original)
        expect(mutant.slice(0, m.start)).toBe(original.slice(0, m.start))
        const inverse = { ...m, before: m.after, after: m.before }
        expect(_.applyToText([inverse])(mutant)).toBe(original)
      }),
      { numRuns: 300 }
    )
  })

  it('never mutates inside strings or comments', () => {
    const src = "// a < b\nconst s = 'x < y'\nif (a < b) return 1\n"
    const sites = _.sitesOf('f.js', src)
    expect(sites.filter((m) => m.operator === 'flipComparison').map((m) => m.line)).toEqual([3])
    expect(sites.some((m) => m.operator === 'dropGuard' && m.before === 'if (a < b) return 1\n')).toBe(true)
  })

  it('swaps simple call arguments but not declarations', () => {
    const src = 'function f(a, b) {\n  return g(a, b.c)\n}\n'
    const swaps = _.sitesOf('f.js', src).filter((m) => m.operator === 'swapArguments')
    expect(swaps.map((m) => m.after)).toEqual(['b.c, a'])
  })

  it('refuses overlapping mutations', () => {
    const [m] = _.sitesOf('f.js', 'if (a < b) return 1\n').filter((x) => x.operator === 'flipComparison')
    expect(() => _.applyToText([m!, { ...m!, after: '<=' }])('if (a < b) return 1\n')).toThrow(/overlapping/)
  })
})
