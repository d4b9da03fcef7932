/**
 * @mtrl/trainer-sft: supervised fine-tuning of mtrl policies on expert trajectories (loss on
 * action tokens only): demonstrations from an environment's expert or a chat JSONL file, the
 * training loop (epochs, schedule, clipping, weight average, held-out loss), data-parallel
 * replicas (worker threads) for a second core, and mid-run checkpoints.
 *
 * @since 0.1.0
 */
export * as Batches from './Batches.js'
export * as Checkpointing from './Checkpointing.js'
export * as Demonstrations from './Demonstrations.js'
export * as Driver from './Driver.js'
export * as ExpertData from './ExpertData.js'
export * as Loss from './Loss.js'
export * as Replicas from './Replicas.js'
export * as Sft from './Sft.js'
export * as WeightAverage from './WeightAverage.js'
