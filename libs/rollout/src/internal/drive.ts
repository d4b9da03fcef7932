/**
 * The lockstep loop behind `Rollout.run`: every slot starts its first episode; then, round after
 * round, every open episode plays one turn (`round.ts`) until none is open or an environment
 * fails; the finished episodes, in slot then episode order, and the rollout metrics are the
 * result.
 */
import type { EnvError } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type { Generator } from '../Generator.js'
import type { Input, Options, Result } from '../Rollout.js'
import * as RolloutMetrics from '../RolloutMetrics.js'
import { beginEpisode } from './episodeLifecycle.js'
import { playRound } from './round.js'
import { makeRolloutState, type RolloutState } from './rolloutState.js'

const now = (): number => performance.now() / 1000

/** Starts every slot's first episode (the environments reset concurrently). */
const beginFirstEpisodes = async (state: RolloutState): Promise<void> => {
  const started = await Promise.all(state.input.envs.map((_, slot) => beginEpisode(state, slot, 0)))
  started.forEach((episode, slot) => episode !== undefined && state.open.set(slot, episode))
}

/** The finished episodes in slot then episode order, and the metrics of a rollout that took `seconds`. */
const resultOf = (state: RolloutState, seconds: number): Result => {
  state.finished.sort((a, b) => a.slot - b.slot || a.index - b.index)
  const metrics = RolloutMetrics.summarize(
    state.finished.map((e) => e.trajectory),
    { ...state.tally, seconds }
  )
  return { episodes: state.finished, metrics }
}

/** Runs the rollout; the first environment failure ends it as a value (`Left`). */
export const drive = async (options: Options, generator: Generator, input: Input): Promise<E.Either<EnvError.EnvError, Result>> => {
  const state = makeRolloutState(options, generator, input)
  const start = now()
  await beginFirstEpisodes(state)
  while (state.open.size > 0 && state.failed === undefined) await playRound(state)
  if (state.failed !== undefined) return E.left(state.failed)
  state.queue.flush()
  return E.right(resultOf(state, now() - start))
}
