/**
 * Numeric codecs shared by the estimators' `Options`. The type stays `number` (no brand), so
 * defaults and literals need no casts; the range is checked by `decode` and `is`.
 */
import * as t from 'io-ts'

const numberIn = (name: string, ok: (x: number) => boolean): t.Type<number, number, unknown> =>
  new t.Type<number, number, unknown>(
    name,
    (u): u is number => typeof u === 'number' && ok(u),
    (u, c) => (typeof u === 'number' && ok(u) ? t.success(u) : t.failure(u, c, name)),
    (a) => a
  )

/** A number in [0, 1]: discounts and GAE lambdas. */
export const UnitInterval = numberIn('a number in [0, 1]', (x) => x >= 0 && x <= 1)

/** A finite number > 0: epsilons. */
export const Positive = numberIn('a finite number > 0', (x) => Number.isFinite(x) && x > 0)
