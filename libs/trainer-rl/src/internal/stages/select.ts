/**
 * Stage 2 of an iteration, select: reward every episode (`setup.reward`, default the
 * environment's turn rewards), keep the groups `filterZeroVariance` keeps (at most
 * `seedsPerIteration`) and of each the `keepPerGroup` most varied episodes; the kept episodes'
 * samples are the batch's rows.
 */
import type { Trajectory } from '@mtrl/core'
import type { Rollout } from '@mtrl/rollout'
import * as Groups from '../../Groups.js'
import type { Trainer } from '../../Trainer.js'

/** The rewards of every episode and the episodes kept for the update. */
export interface Selected {
  /** Per episode played: its per-turn rewards and their sum. */
  readonly turnRewards: ReadonlyArray<ReadonlyArray<number>>
  readonly outcomes: ReadonlyArray<number>
  /** The kept episodes with their index among those played. */
  readonly kept: ReadonlyArray<{ readonly episode: Rollout.Episode; readonly index: number }>
  /** The kept episodes' samples, in order: the batch's rows. */
  readonly samples: ReadonlyArray<Trajectory.Trajectory>
  readonly filtered: number
}

export const select = (trainer: Trainer, episodes: ReadonlyArray<Rollout.Episode>): Selected => {
  const { config } = trainer
  const reward = trainer.setup.reward ?? ((t) => t.turnRewards)
  const turnRewards = episodes.map((e) => reward(e.trajectory))
  const outcomes = turnRewards.map((rs) => rs.reduce((a, b) => a + b, 0))
  const groupIds = episodes.map((e) => e.trajectory.groupId)
  const selected = config.selection.filterZeroVariance
    ? Groups.firstGroups(config.budget.seedsPerIteration, Groups.nonDegenerate(groupIds, outcomes), groupIds)
    : episodes.map(() => true)
  const keep = config.selection.keepPerGroup === null ? selected : Groups.downsample(config.selection.keepPerGroup, selected, groupIds, outcomes)
  const kept = episodes.map((episode, index) => ({ episode, index })).filter(({ index }) => keep[index])
  return { turnRewards, outcomes, kept, samples: kept.flatMap(({ episode }) => episode.samples), filtered: episodes.length - kept.length }
}
