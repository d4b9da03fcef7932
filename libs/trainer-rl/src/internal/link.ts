/**
 * Runs the advantage estimator on an iteration's episodes: the training samples (rows of the
 * padded batch) of each episode go through `EpisodeRows` (one estimator row per episode, its
 * action tokens in order) and the estimate comes back onto the batch's `[batch, time]` layout.
 */
import { EpisodeRows, type TokenBatch } from '@mtrl/advantages'
import type { Trajectory } from '@mtrl/core'
import type { Batch, Rollout } from '@mtrl/rollout'
import type * as Config from '../Config.js'

export interface LinkInput {
  readonly batch: Batch.Batch
  /** The batch's samples: `samples[r]` is row `r`. */
  readonly samples: ReadonlyArray<Trajectory.Trajectory>
  /** For each episode, its sample rows in turn order. */
  readonly episodes: ReadonlyArray<{
    readonly rows: ReadonlyArray<number>
    readonly turnRewards: ReadonlyArray<number>
    readonly groupId: string
    /** Bootstrap the return after the last action from `valuesAfter` (a cut, not an end). */
    readonly bootstrap: boolean
  }>
  /** `[batch, time]`: extra per-token reward (e.g. -beta KL), read on action tokens. */
  readonly tokenPenalty?: Float32Array
  /** `[batch, time]`: V of the state each token is sampled in, read on action tokens. */
  readonly values?: Float32Array
  /** `[batch, time]`: V after reading tokens <= t (for the bootstrap of episodes that were cut). */
  readonly valuesAfter?: Float32Array
}

export const link = (
  input: LinkInput,
  estimator: (batch: TokenBatch.TokenBatch) => TokenBatch.Estimate
): { readonly advantages: Float32Array; readonly returns: Float32Array } => {
  const { batch, samples } = input
  const T = batch.time
  const row = (x: Float32Array, r: number): Float32Array => x.subarray(r * T, (r + 1) * T)
  const rows = EpisodeRows.make(
    input.episodes.map((episode) => {
      const last = episode.rows[episode.rows.length - 1]
      const bootstrapValue =
        episode.bootstrap && input.valuesAfter !== undefined && last !== undefined ? input.valuesAfter[last * T + batch.lengths[last]! - 1]! : 0
      return {
        samples: episode.rows.map((r) => samples[r]!),
        turnRewards: episode.turnRewards,
        groupId: episode.groupId,
        bootstrapValue,
        ...(input.values === undefined ? {} : { values: episode.rows.map((r) => row(input.values!, r)) }),
        ...(input.tokenPenalty === undefined ? {} : { tokenRewards: episode.rows.map((r) => row(input.tokenPenalty!, r)) })
      }
    })
  )
  const estimate = estimator(rows.batch)
  const advantages = new Float32Array(batch.batch * T)
  const returns = new Float32Array(batch.batch * T)
  EpisodeRows.scatter(rows, estimate.advantages)(input.episodes.map((e) => e.rows.map((r) => row(advantages, r))))
  EpisodeRows.scatter(rows, estimate.returns)(input.episodes.map((e) => e.rows.map((r) => row(returns, r))))
  return { advantages, returns }
}

/** Whether the estimator continues an episode past its end with V of its last state. */
export const bootstraps = (advantage: Pick<Config.Advantage, 'truncation'>, episode: Pick<Rollout.Episode, 'ending'>): boolean => {
  switch (episode.ending) {
    case 'done':
      return false
    case 'slotBudget':
      return true
    case 'turnLimit':
    case 'contextLimit':
      return advantage.truncation === 'bootstrap'
  }
}
