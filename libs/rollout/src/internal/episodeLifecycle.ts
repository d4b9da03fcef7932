/**
 * How a slot's episode starts and ends: the environment's reset and the layout's first context,
 * then, at the end, the finished `Episode` and its share of the rollout's totals.
 */
import type { Trajectory } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Ending, Episode } from '../Rollout.js'
import type { MemoryLayout } from './memoryLayout.js'
import { openEpisode, type OpenEpisode } from './openEpisode.js'
import type { RolloutState } from './rolloutState.js'
import { seedOf } from './seedOf.js'
import { countHacking } from './tally.js'

/** The finished episode made of an open one. */
export const closeEpisode = (layout: MemoryLayout, episode: OpenEpisode, won: boolean, ending: Ending): Episode => {
  const trajectory: Trajectory.Trajectory = {
    env: episode.env.spec.name,
    seed: episode.seed,
    groupId: episode.groupId,
    segments: layout.segments(episode),
    turns: episode.turns,
    turnRewards: episode.rewards,
    won,
    truncated: ending !== 'done'
  }
  return { trajectory, samples: layout.samples(episode, trajectory), slot: episode.slot, index: episode.index, ending }
}

/** Ends an episode: counts its action hacking (tagged format) and adds it to the finished ones. */
export const finishEpisode = (state: RolloutState, episode: OpenEpisode, won: boolean, ending: Ending): void => {
  if (state.options.actionFormat === 'tagged') countHacking(state.tally, episode.replies)
  state.finished.push(closeEpisode(state.layout, episode, won, ending))
}

/**
 * Starts the `index`-th episode of a slot; undefined when the slot is done: its environment
 * failed to reset (the failure is kept in `state.failed`), or the episode's first context does
 * not fit (it is finished at once with `contextLimit`).
 */
export const beginEpisode = async (state: RolloutState, slot: number, index: number): Promise<OpenEpisode | undefined> => {
  const { envs, seeds, groupSize } = state.input
  const env = envs[slot]!
  const seed = seedOf(seeds, Math.floor(slot / groupSize), index)
  const reset = await env.reset(seed)()
  if (E.isLeft(reset)) {
    state.failed ??= reset.left
    return undefined
  }
  const episode = openEpisode(slot, index, env, seed, reset.right)
  if (state.layout.startEpisode(episode)) return episode
  finishEpisode(state, episode, false, 'contextLimit')
  return undefined
}
