/**
 * @mtrl/trainer-sft: supervised fine-tuning of mtrl policies on expert trajectories (loss on
 * action tokens only), plus the optimizer step and learning-rate schedule the RL trainer shares.
 *
 * @since 0.1.0
 */
export * as ExpertData from './ExpertData.js'
export * as Optimizer from './Optimizer.js'
export * as Schedule from './Schedule.js'
export * as Sft from './Sft.js'
