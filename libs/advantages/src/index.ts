/**
 * @mtrl/advantages: advantage estimators on token arrays (`[batch, time]` typed arrays, no
 * tensors): GAE (token, turn, dual-discount), GRPO and Dr. GRPO, RLOO, REINFORCE++, their
 * registry and their JSON front door.
 *
 * @since 0.1.0
 */
export * as DualDiscountGae from './DualDiscountGae.js'
export * as EpisodeRows from './EpisodeRows.js'
export * as Estimator from './Estimator.js'
export * as Gae from './Gae.js'
export * as Grpo from './Grpo.js'
export * as JsonEstimate from './JsonEstimate.js'
export * as ReinforcePlusPlus from './ReinforcePlusPlus.js'
export * as Rloo from './Rloo.js'
export * as TokenBatch from './TokenBatch.js'
export * as TurnGae from './TurnGae.js'
