/**
 * A reward design as a recipe writes it: a base reward plus optional scaling and penalties,
 * decoded by an io-ts codec and turned into a `RewardFn` by {@link fromSpec}.
 *
 * ```json
 * { "kind": "density", "fraction": 0.5, "invalidActionPenalty": 0.1, "formatPenalty": 0.1 }
 * ```
 *
 * @since 0.1.0
 */
import { Numbers, RewardFn } from '@mtrl/core'
import * as t from 'io-ts'
import * as Dense from './Dense.js'
import * as Density from './Density.js'
import * as Environment from './Environment.js'
import * as Outcome from './Outcome.js'
import * as Penalty from './Penalty.js'
import * as TestPass from './TestPass.js'

const Fraction = Numbers.UnitInterval
const Magnitude = Numbers.refine('a finite number >= 0', (x) => Number.isFinite(x) && x >= 0)
const Finite = Numbers.Finite

/**
 * Shaping on top of any base reward, all optional:
 * - `scale`: multiplies the base reward (default 1);
 * - `invalidActionPenalty`, `formatPenalty`, `turnCost`: magnitudes subtracted per turn (`Penalty`).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Shaping = t.partial({ scale: Finite, invalidActionPenalty: Magnitude, formatPenalty: Magnitude, turnCost: Magnitude })
/** @category models @since 0.1.0 */
export type Shaping = t.TypeOf<typeof Shaping>

const kind = <P extends t.Props>(props: P) => t.intersection([t.type(props), Shaping])

/**
 * The base rewards: `outcome` (sparse), `dense`, `density` with its `fraction`, `environment`
 * (the environment's rewards as given),
 * `testPassRatio` and `binary` (SWE), each with optional {@link Shaping}.
 *
 * @category codecs
 * @since 0.1.0
 */
export const RewardSpec = t.union([
  kind({ kind: t.literal('outcome') }),
  kind({ kind: t.literal('dense') }),
  kind({ kind: t.literal('environment') }),
  kind({ kind: t.literal('density'), fraction: Fraction }),
  kind({ kind: t.literal('testPassRatio') }),
  kind({ kind: t.literal('binary') })
])
/** @category models @since 0.1.0 */
export type RewardSpec = t.TypeOf<typeof RewardSpec>

const base = (spec: RewardSpec): RewardFn.RewardFn => {
  switch (spec.kind) {
    case 'outcome':
      return Outcome.outcome
    case 'dense':
      return Dense.dense
    case 'environment':
      return Environment.environment
    case 'density':
      return Density.density(spec.fraction)
    case 'testPassRatio':
      return TestPass.testPassRatio
    case 'binary':
      return TestPass.binary
  }
}

/**
 * The reward function a spec describes:
 * `r = scale * base + invalidActionPenalty(p1) + formatPenalty(p2) + turnCost(c)` (absent terms 0).
 *
 * @example
 * import { RewardSpec } from '@mtrl/rewards'
 * const reward = RewardSpec.fromSpec({ kind: 'dense', formatPenalty: 0.1 })
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromSpec = (spec: RewardSpec): RewardFn.RewardFn => {
  const scaled = spec.scale === undefined || spec.scale === 1 ? base(spec) : RewardFn.scale(spec.scale)(base(spec))
  const terms: RewardFn.RewardFn[] = [scaled]
  if (spec.invalidActionPenalty !== undefined) terms.push(Penalty.invalidActionPenalty(spec.invalidActionPenalty))
  if (spec.formatPenalty !== undefined) terms.push(Penalty.formatPenalty(spec.formatPenalty))
  if (spec.turnCost !== undefined) terms.push(Penalty.turnCost(spec.turnCost))
  return terms.length === 1 ? scaled : RewardFn.sum(terms)
}
