/**
 * Refined number codecs for options and recipes: the type stays `number` (no brand), so
 * defaults and literals need no casts; `decode` and `is` check the range, and a failure names
 * what was expected (`expected a positive integer, got -5`).
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'

/**
 * A number codec accepting what `ok` accepts; `name` says what is expected.
 *
 * @example
 * import { Numbers } from '@mtrl/core'
 * const Percent = Numbers.refine('a number in [0, 100]', (n) => n >= 0 && n <= 100)
 *
 * @category constructors
 * @since 0.1.0
 */
export const refine = (name: string, ok: (n: number) => boolean): t.Type<number, number, unknown> =>
  new t.Type<number, number, unknown>(
    name,
    (u): u is number => typeof u === 'number' && ok(u),
    (u, c) => (typeof u === 'number' && ok(u) ? t.success(u) : t.failure(u, c, name)),
    (a) => a
  )

/** An integer > 0: sizes and budgets. @category codecs @since 0.1.0 */
export const PositiveInt = refine('a positive integer', (n) => Number.isInteger(n) && n > 0)
/** An integer >= 0: counts, seeds, cadences where 0 means off. @category codecs @since 0.1.0 */
export const NonNegativeInt = refine('a non-negative integer', (n) => Number.isInteger(n) && n >= 0)
/** A finite number > 0: learning rates, norms, epsilons. @category codecs @since 0.1.0 */
export const Positive = refine('a positive number', (n) => Number.isFinite(n) && n > 0)
/** A finite number >= 0: weights and coefficients. @category codecs @since 0.1.0 */
export const NonNegative = refine('a non-negative number', (n) => Number.isFinite(n) && n >= 0)
/** A number in [0, 1): rates and decays that must stay below 1. @category codecs @since 0.1.0 */
export const Fraction = refine('a number in [0, 1)', (n) => n >= 0 && n < 1)
/** A number in [0, 1]: probabilities, discounts, lambdas. @category codecs @since 0.1.0 */
export const UnitInterval = refine('a number in [0, 1]', (n) => n >= 0 && n <= 1)
/** Any finite number (no NaN, no infinities). @category codecs @since 0.1.0 */
export const Finite = refine('a finite number', (n) => Number.isFinite(n))
