/**
 * Numeric codecs shared by the estimators' `Options`. The type stays `number` (no brand), so
 * defaults and literals need no casts; the range is checked by `decode` and `is`.
 */
import { Numbers } from '@mtrl/core'

/** A number in [0, 1]: discounts and GAE lambdas. */
export const UnitInterval = Numbers.UnitInterval

/** A finite number > 0: epsilons. */
export const Positive = Numbers.refine('a finite number > 0', (x) => Number.isFinite(x) && x > 0)
