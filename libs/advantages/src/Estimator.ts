/**
 * The closed registry of estimators, keyed by an io-ts `keyof` of names: adding a name to
 * {@link Name} without registering it is a compile error, and so is registering a module whose
 * surface (`Options`, `defaultOptions`, `estimate`) does not fit.
 *
 * @since 0.1.0
 */
import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import * as DualDiscountGae from './DualDiscountGae.js'
import * as Gae from './Gae.js'
import * as Grpo from './Grpo.js'
import * as ReinforcePlusPlus from './ReinforcePlusPlus.js'
import * as Rloo from './Rloo.js'
import type { Estimate, TokenBatch } from './TokenBatch.js'
import * as TurnGae from './TurnGae.js'

/**
 * Estimator names, as recipes and the CLI spell them. `drGrpo` is `Grpo` with
 * `normalizeByStd: false` by default.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Name = t.keyof({
  gae: null,
  turnGae: null,
  dualDiscountGae: null,
  grpo: null,
  drGrpo: null,
  rloo: null,
  reinforcePlusPlus: null
})
/** @category models @since 0.1.0 */
export type Name = t.TypeOf<typeof Name>

/**
 * One registered estimator, its options type erased: `configure` decodes option overrides
 * (unknown fields rejected, omitted fields from `defaultOptions`) and returns the estimator.
 *
 * @category models
 * @since 0.1.0
 */
export interface Entry {
  readonly name: Name
  /** Option names and their defaults. */
  readonly defaultOptions: Readonly<Record<string, unknown>>
  readonly configure: (overrides: unknown) => E.Either<Decode.DecodeError, (input: TokenBatch) => Estimate>
}

const entry = <P extends t.Props>(
  name: Name,
  Options: t.TypeC<P>,
  defaultOptions: t.TypeOf<t.TypeC<P>>,
  estimate: (options: t.TypeOf<t.TypeC<P>>) => (input: TokenBatch) => Estimate
): Entry => {
  const decode = Decode.withDefaults(`${name} options`, Options, defaultOptions)
  return { name, defaultOptions, configure: (overrides) => E.map(estimate)(decode(overrides)) }
}

/**
 * Every estimator by name.
 *
 * @category instances
 * @since 0.1.0
 */
export const registry: { readonly [K in Name]: Entry } = {
  gae: entry('gae', Gae.Options, Gae.defaultOptions, Gae.estimate),
  turnGae: entry('turnGae', TurnGae.Options, TurnGae.defaultOptions, TurnGae.estimate),
  dualDiscountGae: entry('dualDiscountGae', DualDiscountGae.Options, DualDiscountGae.defaultOptions, DualDiscountGae.estimate),
  grpo: entry('grpo', Grpo.Options, Grpo.defaultOptions, Grpo.estimate),
  drGrpo: entry('drGrpo', Grpo.Options, { ...Grpo.defaultOptions, normalizeByStd: false }, Grpo.estimate),
  rloo: entry('rloo', Rloo.Options, Rloo.defaultOptions, Rloo.estimate),
  reinforcePlusPlus: entry('reinforcePlusPlus', ReinforcePlusPlus.Options, ReinforcePlusPlus.defaultOptions, ReinforcePlusPlus.estimate)
}

/**
 * All names, in registry order.
 *
 * @category destructors
 * @since 0.1.0
 */
export const names: ReadonlyArray<Name> = Object.keys(Name.keys) as ReadonlyArray<Name>

/**
 * The estimator `name` with option overrides decoded from `overrides` (e.g. a recipe's
 * `{ "gamma": 0.99 }`); failures name the bad option.
 *
 * @example
 * import { Estimator } from '@mtrl/advantages'
 * const gae = Estimator.configure('gae')({ lambda: 0.95 }) // Right(estimate with gamma 1, lambda 0.95, whiten)
 *
 * @category constructors
 * @since 0.1.0
 */
export const configure =
  (name: Name) =>
  (overrides: unknown): E.Either<Decode.DecodeError, (input: TokenBatch) => Estimate> =>
    registry[name].configure(overrides)
