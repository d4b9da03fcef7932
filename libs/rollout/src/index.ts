/**
 * @mtrl/rollout: batched multi-turn rollouts of language-model agents in text environments,
 * token-in-token-out.
 *
 * @since 0.1.0
 */
export * as ActionFormat from './ActionFormat.js'
export * as Batch from './Batch.js'
export * as Generator from './Generator.js'
export * as Layout from './Layout.js'
export * as Memory from './Memory.js'
export * as Rollout from './Rollout.js'
export * as RolloutMetrics from './RolloutMetrics.js'
