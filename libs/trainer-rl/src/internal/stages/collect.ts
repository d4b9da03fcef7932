/**
 * Stage 1 of an iteration, collect: draw the iteration's task seeds (`oversample` x as many with
 * dynamic sampling; a share of them replays of recently lost games when `config.replay` is on),
 * have them played (`groupSize` episodes each; in process or by `setup.play`), record which
 * games were lost for the replay queue, and check that groups came back whole.
 */
import type { EnvError } from '@mtrl/core'
import { Rollout, type Generator } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import * as Groups from '../../Groups.js'
import * as Replay from '../../Replay.js'
import type { Trainer } from '../../Trainer.js'

/**
 * What was played: the episodes, the rollout's metrics, the drawn seeds, the time it took, and the
 * iteration whose weights played it (the updates made before it started).
 */
export interface Collected {
  readonly episodes: ReadonlyArray<Rollout.Episode>
  readonly rollout: Rollout.Result['metrics']
  readonly drawn: Replay.Draw
  readonly seconds: number
  readonly version: number
}

/** Per drawn seed: whether an episode of its game was lost (false when none of it came back). */
const lostGames = (seeds: ReadonlyArray<number>, episodes: ReadonlyArray<Rollout.Episode>): ReadonlyArray<boolean> => {
  const lost = new Map<number, boolean>()
  for (const { trajectory } of episodes) lost.set(trajectory.seed, (lost.get(trajectory.seed) ?? false) || !trajectory.won)
  return seeds.map((seed) => lost.get(seed) ?? false)
}

/** Success rate of the episodes of replayed games (NaN when none was replayed). */
export const replaySuccess = (drawn: Replay.Draw, episodes: ReadonlyArray<Rollout.Episode>): number => {
  const replayed = new Set(drawn.seeds.filter((_, i) => drawn.replays[i]! > 0))
  const played = episodes.filter((e) => replayed.has(e.trajectory.seed))
  return played.length === 0 ? Number.NaN : played.filter((e) => e.trajectory.won).length / played.length
}

/**
 * Plays an iteration's episodes (updates the trainer's task stream and replay queue). Everything
 * the episodes depend on (the seeds, the sampling key, the weights a player off this thread
 * copies) is taken before the first `await`, so a collect started just before an update plays
 * with the weights before it.
 */
export const collect = async (trainer: Trainer): Promise<E.Either<EnvError.EnvError, Collected>> => {
  const { setup, state } = trainer
  const { config } = trainer
  const started = performance.now()
  const version = state.iteration
  const played = config.budget.seedsPerIteration * config.selection.oversample
  const drawn = Replay.draw(config.replay, played, () => state.tasks.int(2147483647))(state.replay)
  const generator: Generator.Generator = { session: trainer.session, template: setup.template, tokenizer: setup.tokenizer, contextLength: setup.contextLength }
  const input: Rollout.Input = { envs: setup.envs, seeds: drawn.seeds, groupSize: config.budget.groupSize, rng: state.sampling }
  const rolled = await (setup.play === undefined ? Rollout.run(config.rollout)(generator)(input) : setup.play(input, generator))()
  if (E.isLeft(rolled)) return rolled
  const { episodes, metrics } = rolled.right
  state.replay = Replay.record(config.replay, played, drawn, lostGames(drawn.seeds, episodes))(drawn.queue)
  if (config.rollout.turnsPerSlot === undefined) {
    const checked = Groups.check(config.budget.groupSize)(episodes.map((e) => e.trajectory))
    if (E.isLeft(checked)) throw new Error(`Trainer.iterate: group integrity: ${checked.left}`)
  }
  return E.right({ episodes, rollout: metrics, drawn, seconds: (performance.now() - started) / 1000, version })
}
