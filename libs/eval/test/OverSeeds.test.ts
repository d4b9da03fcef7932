import * as fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as StudentT from '../src/internal/studentT.js'
import * as _ from '../src/OverSeeds.js'

describe('StudentT.quantile', () => {
  it("matches scipy.stats.t.ppf(0.975, df) (scipy 1.17.1), integer and Welch's real df", () => {
    const scipy: ReadonlyArray<readonly [number, number]> = [
      [1, 12.706204736174694],
      [2, 4.302652729749462],
      [3, 3.1824463052837078],
      [4, 2.7764451051977934],
      [9, 2.262157162798205],
      [30, 2.0422724563012378],
      [2.66, 3.425416672473168],
      [7.5, 2.333039626864974],
      [54.8, 2.004209194547378],
      [1000, 1.9623390808264083],
      [1e6, 1.959966356814107]
    ]
    for (const [df, t] of scipy) expect(StudentT.quantile(0.975, df)).toBeCloseTo(t, 9)
    expect(StudentT.cdf(1.5, 3.3)).toBeCloseTo(0.8887484016403541, 12)
    expect(StudentT.quantile(0.025, 4)).toBeCloseTo(-2.7764451051977934, 9)
  })
})

describe('OverSeeds.interval', () => {
  it('matches an independent Python reference (scipy t quantile) of the formula', () => {
    // python3 + scipy: m = mean; a = statistics.variance/k; p = clamp(m, .5/(n+1)); b = p(1-p)/n;
    // logit(p) ± sqrt(t.ppf(.975,k-1)^2 a + t.ppf(.975,n-1)^2 b)/(p(1-p)), widened to hold m
    const cases: ReadonlyArray<readonly [ReadonlyArray<number>, number, number, number, number]> = [
      [[0.82, 0.85, 0.83], 100, 0.8333333333333334, 0.7332177378843054, 0.9009536547942787],
      [[0.29, 0.42, 0.31], 100, 0.34, 0.17593046701016343, 0.5541808332113947],
      [[1, 1, 1], 100, 1.0, 0.9224561514285016, 1.0],
      [[0.97], 100, 0.97, 0.9099422588837711, 0.9904277370451882],
      [[0, 1, 1], 100, 0.6666666666666666, 0.0030960015730436934, 0.9992241981940304],
      [[0.76, 0.79, 0.63, 0.62, 0.83], 100, 0.726, 0.5573350965397574, 0.8479342631733268],
      [[0.9, 0.95, 1.0], 100, 0.95, 0.5437873497490059, 0.9967090372179293],
      [[0, 0, 0], 100, 0, 0, 0.07754384857149847],
      [[0.5, 0.6], 20, 0.55, 0.07356353564172285, 0.9495275736159619]
    ]
    for (const [rates, games, mean, low, high] of cases) {
      const o = _.interval(games)(rates)
      expect(o.mean).toBeCloseTo(mean, 12)
      expect(o.ci95.low).toBeCloseTo(low, 9)
      expect(o.ci95.high).toBeCloseTo(high, 9)
      expect(o.seeds).toBe(rates.length)
    }
  })

  const rates = (n: number) => fc.array(fc.integer({ min: 0, max: n }), { minLength: 1, maxLength: 8 }).map((ks) => ks.map((k) => k / n))

  it('property: always inside [0, 1] and holds the mean', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 500 }).chain((n) => fc.tuple(fc.constant(n), rates(n))),
        ([n, rs]) => {
          const o = _.interval(n)(rs)
          expect(o.ci95.low).toBeGreaterThanOrEqual(0)
          expect(o.ci95.high).toBeLessThanOrEqual(1)
          expect(o.ci95.low).toBeLessThanOrEqual(o.mean)
          expect(o.ci95.high).toBeGreaterThanOrEqual(o.mean)
        }
      )
    )
  })

  it('property: narrower with the same seeds played twice as often (twice the seeds) or on twice the games', () => {
    const width = (o: _.OverSeeds) => o.ci95.high - o.ci95.low
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 200 }).chain((n) => fc.tuple(fc.constant(n), rates(n))),
        ([n, rs]) => {
          const once = _.interval(n)(rs)
          if (rs.length >= 2) expect(width(_.interval(n)([...rs, ...rs]))).toBeLessThanOrEqual(width(once) + 1e-12)
          // twice the games: narrower where the mean is inside n games' clamp (0.5 / (n + 1) from
          // 0 and 1), where the logit-scale delta method works at the mean itself; nearer the
          // edge a looser clamp moves p towards 0 or 1 and the seeds' spread term grows with it
          // (e.g. 14 games, rates 1, 1, 0.93: wider on 28)
          const edge = 0.5 / (n + 1)
          if (once.mean >= edge && once.mean <= 1 - edge) expect(width(_.interval(2 * n)(rs))).toBeLessThan(width(once))
        }
      )
    )
  })

  it('bad input is an error naming it', () => {
    expect(() => _.interval(100)([])).toThrow(/no rates/)
    expect(() => _.interval(100)([1.2])).toThrow(/in \[0, 1\], got 1.2/)
    expect(() => _.interval(1)([0.5])).toThrow(/games must be an integer >= 2, got 1/)
  })

  it('formats as docs write it, "one seed" for one', () => {
    expect(_.format(_.interval(100)([0.82, 0.85, 0.83]))).toBe('83.3% [73.3, 90.1] (3 seeds)')
    expect(_.format(_.interval(100)([0.97]))).toBe('97.0% [91.0, 99.0] (one seed)')
  })
})
