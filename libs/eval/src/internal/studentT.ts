/**
 * Student's t distribution: its CDF through the regularized incomplete beta function (Lentz's
 * continued fraction, as in Numerical Recipes' `betacf`), and the quantile by bisection on it.
 * Real (non-integer) degrees of freedom are allowed (Welch-Satterthwaite).
 */

/** ln Γ(x), Lanczos (g = 7, 9 terms), |error| < 1e-14 for x > 0. */
const lnGamma = (x: number): number => {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7
  ]
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x)
  const z = x - 1
  let sum = c[0]!
  for (let i = 1; i < 9; i++) sum += c[i]! / (z + i)
  const t = z + 7.5
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum)
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
const betaFraction = (a: number, b: number, x: number): number => {
  const tiny = 1e-300
  let c = 1
  let d = 1 - ((a + b) * x) / (a + 1)
  d = 1 / (Math.abs(d) < tiny ? tiny : d)
  let h = d
  for (let m = 1; m <= 300; m++) {
    for (const num of [(m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)), (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))]) {
      d = 1 + num * d
      d = 1 / (Math.abs(d) < tiny ? tiny : d)
      c = 1 + num / c
      if (Math.abs(c) < tiny) c = tiny
      h *= d * c
    }
    if (Math.abs(d * c - 1) < 1e-15) break
  }
  return h
}

/** The regularized incomplete beta function I_x(a, b). */
const incompleteBeta = (a: number, b: number, x: number): number => {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x))
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b
}

/** P(T <= t) for T ~ Student's t with `df` degrees of freedom. */
export const cdf = (t: number, df: number): number => {
  const tail = 0.5 * incompleteBeta(df / 2, 0.5, df / (df + t * t))
  return t >= 0 ? 1 - tail : tail
}

/** The `p` quantile (0 < p < 1) of Student's t with `df` > 0 degrees of freedom, to about 1e-12. */
export const quantile = (p: number, df: number): number => {
  if (p === 0.5) return 0
  if (p < 0.5) return -quantile(1 - p, df)
  let lo = 0
  let hi = 1
  while (cdf(hi, df) < p) hi *= 2
  for (let i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
    const mid = (lo + hi) / 2
    if (cdf(mid, df) < p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}
