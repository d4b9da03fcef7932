/**
 * The four RL algorithms of the paper's comparison (Wang & Ammanabrolu 2025, Table 10) as a
 * closed registry: which advantage estimator, which policy loss, whether a critic is trained.
 * A new algorithm is a compile error until it is registered here.
 *
 * | name | advantages (`@mtrl/advantages`) | policy loss | critic |
 * |---|---|---|---|
 * | `ppo` | `gae` (token level, skipping observations) | {@link Ppo} (dual clip) | yes |
 * | `grpo` | `grpo` (group mean / std) | {@link PolicyGradient} | no |
 * | `rloo` | `rloo` (leave-one-out) | {@link PolicyGradient} | no |
 * | `reinforce++` | `reinforcePlusPlus` (batch-normalised returns) | {@link PolicyGradient} | no |
 *
 * The estimator may be overridden (e.g. PPO with `turnGae` or `dualDiscountGae`).
 *
 * @since 0.1.0
 */
import type { Estimator } from '@mtrl/advantages'
import * as t from 'io-ts'

/**
 * @category codecs
 * @since 0.1.0
 */
export const Name = t.keyof({ ppo: null, grpo: null, rloo: null, 'reinforce++': null })
/** @category models @since 0.1.0 */
export type Name = t.TypeOf<typeof Name>

/**
 * @category models
 * @since 0.1.0
 */
export interface Algorithm {
  readonly name: Name
  readonly estimator: Estimator.Name
  readonly loss: 'ppo' | 'policyGradient'
  readonly critic: boolean
  /** Needs groups of several episodes per task. */
  readonly grouped: boolean
}

/**
 * @category constructors
 * @since 0.1.0
 */
export const registry: { readonly [K in Name]: Algorithm } = {
  ppo: { name: 'ppo', estimator: 'gae', loss: 'ppo', critic: true, grouped: false },
  grpo: { name: 'grpo', estimator: 'grpo', loss: 'policyGradient', critic: false, grouped: true },
  rloo: { name: 'rloo', estimator: 'rloo', loss: 'policyGradient', critic: false, grouped: true },
  'reinforce++': { name: 'reinforce++', estimator: 'reinforcePlusPlus', loss: 'policyGradient', critic: false, grouped: false }
}

/** @category constructors @since 0.1.0 */
export const names: ReadonlyArray<Name> = Object.keys(Name.keys) as ReadonlyArray<Name>
