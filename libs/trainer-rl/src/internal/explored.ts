/**
 * Exploration moves in a batch (a rollout's `exploreRate`): which action tokens the policy did
 * not sample, and the action mask a loss takes under `exploredCredit`.
 */
import { Trajectory } from '@mtrl/core'
import type { Batch } from '@mtrl/rollout'
import type * as Config from '../Config.js'

/**
 * `[batch, time]`: 1 on the action tokens of explored turns of each sample (row `b` is
 * `samples[b]`), 0 elsewhere; undefined when the batch has none.
 */
export const exploredMask = (samples: ReadonlyArray<Trajectory.Trajectory>, time: number): Float32Array | undefined => {
  if (!samples.some((s) => s.turns.some((t) => t.explored === true))) return undefined
  const out = new Float32Array(samples.length * time)
  samples.forEach((sample, b) => out.set(Trajectory.exploredMask(sample), b * time))
  return out
}

/**
 * The batch the losses train on: as given under `signed` credit (an exploration move is
 * reinforced or discouraged by its advantage, as a sampled action); under `positive` credit, the
 * explored tokens whose advantage is not positive leave the action mask (only a move that did
 * better than expected teaches, self-imitation's max(R - V, 0), Oh et al. 2018).
 */
export const trainingBatch = (
  credit: Config.Loss['exploredCredit'],
  batch: Batch.Batch,
  explored: Float32Array | undefined,
  advantages: Float32Array
): Batch.Batch => {
  if (explored === undefined || credit === 'signed') return batch
  const actionMask = batch.actionMask.map((m, i) => (explored[i] === 1 && !(advantages[i]! > 0) ? 0 : m))
  return { ...batch, actionMask }
}
