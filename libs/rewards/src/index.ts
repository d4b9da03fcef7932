/**
 * @mtrl/rewards: turn-reward designs, pure `Trajectory -> turn rewards` functions (core's
 * `RewardFn`): sparse outcome, normalised dense, density control, penalties, SWE test-pass
 * rewards, and the recipe-facing `RewardSpec`. Compose them with `RewardFn.sum` and
 * `RewardFn.scale` from `@mtrl/core`.
 *
 * @since 0.1.0
 */
export * as Dense from './Dense.js'
export * as Density from './Density.js'
export * as Environment from './Environment.js'
export * as Outcome from './Outcome.js'
export * as Penalty from './Penalty.js'
export * as RewardSpec from './RewardSpec.js'
export * as TestPass from './TestPass.js'
