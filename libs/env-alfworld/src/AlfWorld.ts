/**
 * The ALFWorld environment as an mtrl `Env`: `make(settings)` gives one episode slot;
 * `reset(seed)` builds the game for that seed within the split and task-type filter.
 *
 * Reward is sparse by default (1 on success, as ALFWorld); with `denseReward` it is the
 * delta of reached subgoals (found, picked, transformed, placed; see `Task.subgoals`) and
 * `info.score` / `info.maxScore` count them. `info.extra.taskType` names the task type so that
 * evaluation can report success per type.
 *
 * @since 0.1.0
 */
import { EnvError, Numbers, type Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import { advance, begin, type Episode } from './internal/episode.js'
import type * as Game from './Game.js'
import * as Expert from './Expert.js'
import * as Scene from './Scene.js'
import { Split } from './Split.js'
import { TaskType, taskTypes as allTaskTypes } from './Task.js'

const PositiveInt = Numbers.PositiveInt

const TaskTypes = new t.Type<ReadonlyArray<TaskType>, ReadonlyArray<TaskType>, unknown>(
  'NonEmptyTaskTypes',
  (u): u is ReadonlyArray<TaskType> => Array.isArray(u) && u.length > 0 && u.every(TaskType.is),
  (u, c) => {
    const decoded = t.readonlyArray(TaskType).validate(u, c)
    if (E.isLeft(decoded)) return decoded
    return decoded.right.length > 0 ? t.success(decoded.right) : t.failure(u, c, 'a non-empty list of task types')
  },
  (a) => a
)

/**
 * Settings, as recipes write them (every field optional; see {@link defaults}).
 *
 * - `split`: `train` | `valid-seen` | `valid-unseen`;
 * - `taskTypes`: the task types to draw from (seed mod n picks one);
 * - `maxTurns`: turn budget (default 50);
 * - `denseReward`: subgoal rewards instead of the sparse success reward.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Settings = t.partial({ split: Split, taskTypes: TaskTypes, maxTurns: PositiveInt, denseReward: t.boolean })
/** @category models @since 0.1.0 */
export type Settings = t.TypeOf<typeof Settings>

/** Settings with every field filled in. @category models @since 0.1.0 */
export type Resolved = Required<Settings>

/**
 * @category constants
 * @since 0.1.0
 */
export const defaults: Resolved = { split: 'train', taskTypes: allTaskTypes, maxTurns: 50, denseReward: false }

/** @category constructors @since 0.1.0 */
export const resolve = (settings: Settings): Resolved => ({ ...defaults, ...settings })

/**
 * The prompt sentence describing the action format.
 *
 * @category constants
 * @since 0.1.0
 */
export const actionFormat =
  'One command per turn, in lower case, naming receptacles and objects with their numbers: ' +
  'go to {recep}, open {recep}, close {recep}, take {obj} from {recep}, move {obj} to {recep}, ' +
  'heat {obj} with {microwave}, cool {obj} with {fridge}, clean {obj} with {sinkbasin}, ' +
  'slice {obj} with {knife}, use {lamp}, examine {obj or recep}, look, inventory.'

/**
 * The `EnvSpec` for these settings: name `alfworld/<split>`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const spec = (settings: Settings = {}): Env.EnvSpec => {
  const s = resolve(settings)
  return { name: `alfworld/${s.split}`, maxTurns: s.maxTurns, actionFormat }
}

/**
 * An `Env` that also exposes its current game state (for the expert) and turn.
 *
 * @category models
 * @since 0.1.0
 */
export interface AlfWorldEnv extends Env.Env {
  /** The current game state, `none` before the first reset. */
  readonly state: () => O.Option<Game.State>
  /** The current episode's game (scene and task). */
  readonly game: () => O.Option<Scene.Game>
  readonly turn: () => number
}

/**
 * One environment slot.
 *
 * @example
 * import { AlfWorld, Expert } from '@mtrl/env-alfworld'
 * import * as O from 'fp-ts/lib/Option.js'
 * const env = AlfWorld.make({ split: 'valid-unseen', taskTypes: ['pick_heat_then_place_in_recep'] })
 * const first = await env.reset(3)()               // Right({ goal: 'put a hot ... in ...', ... })
 * const action = O.chain(Expert.next)(env.state()) // the expert's first command
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (settings: Settings = {}): AlfWorldEnv => {
  const s = resolve(settings)
  const envSpec = spec(s)
  const generate = Scene.generate(s.split, s.taskTypes)
  let episode: Episode | undefined
  const reset =
    (seed: number): TE.TaskEither<EnvError.EnvError, Env.Observation> =>
    () => {
      if (!Number.isFinite(seed)) return Promise.resolve(E.left(EnvError.resetFailed(envSpec.name, seed, 'seed must be a finite number')))
      try {
        const started = begin(generate(seed), { maxTurns: s.maxTurns, denseReward: s.denseReward })
        episode = started.episode
        return Promise.resolve(E.right(started.observation))
      } catch (error) {
        return Promise.resolve(E.left(EnvError.resetFailed(envSpec.name, seed, String(error))))
      }
    }
  const step =
    (action: string): TE.TaskEither<EnvError.EnvError, Env.StepResult> =>
    () => {
      if (episode === undefined) return Promise.resolve(E.left(EnvError.notStarted(envSpec.name)))
      if (episode.done) return Promise.resolve(E.left(EnvError.episodeOver(envSpec.name)))
      const played = advance(action)(episode)
      episode = played.episode
      return Promise.resolve(E.right(played.result))
    }
  return {
    spec: envSpec,
    reset,
    step,
    close: () => T.fromIO(() => void (episode = undefined)),
    state: () => O.fromNullable(episode?.state),
    game: () => O.fromNullable(episode?.state.game),
    turn: () => episode?.turn ?? 0
  }
}

/**
 * A factory for rollouts: each call makes an independent slot.
 *
 * @category constructors
 * @since 0.1.0
 */
export const factory =
  (settings: Settings = {}): Env.EnvFactory =>
  () =>
    make(settings)

/**
 * The task family as pipelines use it (`Env.EnvSource`): fresh envs, the expert
 * (`Expert.plan`), and the task type of each seed (`Scene.taskTypeOf`).
 *
 * @example
 * import { AlfWorld } from '@mtrl/env-alfworld'
 * const source = AlfWorld.source({ split: 'valid-unseen' })
 * source.taskType?.(0) // 'pick_and_place_simple'
 *
 * @category constructors
 * @since 0.1.0
 */
export const source = (settings: Settings = {}): Env.EnvSource => {
  const envSpec = spec(settings)
  const taskTypes = resolve(settings).taskTypes
  return {
    name: envSpec.name,
    maxTurns: envSpec.maxTurns,
    make: factory(settings),
    expertPlan: (env) => O.getOrElse((): ReadonlyArray<string> => [])(O.chain(Expert.plan)((env as AlfWorldEnv).state())),
    taskType: Scene.taskTypeOf(taskTypes),
    dispose: () => undefined
  }
}
