/**
 * @mtrl/trainer-sft: supervised fine-tuning of mtrl policies on expert trajectories (loss on
 * action tokens only), plus the optimizer step and learning-rate schedule the RL trainer shares, and data-parallel
 * replicas (worker threads) for a second core.
 *
 * @since 0.1.0
 */
export * as ExpertData from './ExpertData.js'
export * as Replicas from './Replicas.js'
export * as Sft from './Sft.js'
