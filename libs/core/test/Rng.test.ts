import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Rng.js'

const draw = (rng: _.Rng, n: number): number[] => Array.from({ length: n }, () => rng.nextUint32())

describe('Rng', () => {
  it('gives the same stream for the same seed', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        expect(draw(_.make(seed), 32)).toEqual(draw(_.make(seed), 32))
      })
    )
  })

  it('gives different streams for different seeds', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer(), (a, b) => {
        fc.pre(a !== b)
        expect(draw(_.make(a), 8)).not.toEqual(draw(_.make(b), 8))
      })
    )
  })

  it('matches a fixed reference stream on every platform', () => {
    // Pinned values: a change here breaks reproducibility of every saved run.
    expect(draw(_.make(0), 4)).toEqual(draw(_.fromState(_.make(0).state()), 4))
    const reference = draw(_.make(12345), 5)
    expect(reference.every((x) => Number.isInteger(x) && x >= 0 && x < 2 ** 32)).toBe(true)
    expect(reference).toMatchInlineSnapshot(`
      [
        1894133362,
        2875399054,
        1753602511,
        3542947812,
        2972368508,
      ]
    `)
  })

  it('resumes exactly from a saved state', () => {
    fc.assert(
      fc.property(fc.integer(), fc.nat(100), (seed, skip) => {
        const rng = _.make(seed)
        draw(rng, skip)
        const copy = _.fromState(rng.state())
        expect(draw(copy, 16)).toEqual(draw(rng, 16))
      })
    )
  })

  it('splits into a child stream independent of the parent', () => {
    const parent = _.make(7)
    const child = parent.split()
    const a = draw(parent, 2000).map((x) => x / 2 ** 32)
    const b = draw(child, 2000).map((x) => x / 2 ** 32)
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length
    const ma = mean(a)
    const mb = mean(b)
    const cov = mean(a.map((x, i) => (x - ma) * (b[i]! - mb)))
    const corr = cov / Math.sqrt(mean(a.map((x) => (x - ma) ** 2)) * mean(b.map((x) => (x - mb) ** 2)))
    expect(Math.abs(corr)).toBeLessThan(0.1)
    // no shared values at the same positions
    expect(a.filter((x, i) => x === b[i]).length).toBe(0)
  })

  it('splits deterministically', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        expect(draw(_.make(seed).split(), 8)).toEqual(draw(_.make(seed).split(), 8))
      })
    )
  })

  it('draws uniform integers (chi-square within tolerance)', () => {
    const rng = _.make(99)
    const k = 10
    const n = 50_000
    const counts = new Array<number>(k).fill(0)
    for (let i = 0; i < n; i++) counts[rng.int(k)]! += 1
    const expected = n / k
    const chi2 = counts.reduce((s, c) => s + (c - expected) ** 2 / expected, 0)
    // 9 degrees of freedom: p = 0.001 critical value is 27.88
    expect(chi2).toBeLessThan(27.88)
  })

  it('draws floats in [0, 1) with mean 1/2', () => {
    const rng = _.make(3)
    const xs = Array.from({ length: 20_000 }, () => rng.next())
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true)
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.01)
  })

  it('int stays in range', () => {
    fc.assert(
      fc.property(fc.integer(), fc.integer({ min: 1, max: 1000 }), (seed, n) => {
        const rng = _.make(seed)
        for (let i = 0; i < 20; i++) {
          const x = rng.int(n)
          expect(x).toBeGreaterThanOrEqual(0)
          expect(x).toBeLessThan(n)
        }
      })
    )
  })

  it('rejects bad arguments', () => {
    expect(() => _.make(Number.NaN)).toThrow(RangeError)
    expect(() => _.make(1).int(0)).toThrow(RangeError)
    expect(() => _.pick(_.make(1))([])).toThrow(RangeError)
  })

  it('shuffle is a permutation', () => {
    fc.assert(
      fc.property(fc.integer(), fc.array(fc.integer()), (seed, xs) => {
        const ys = _.shuffle(_.make(seed))(xs)
        expect([...ys].sort((a, b) => a - b)).toEqual([...xs].sort((a, b) => a - b))
      })
    )
  })
})
