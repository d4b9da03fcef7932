/**
 * TextWorld games as mtrl environments: `make(settings)` returns an `Env` whose
 * `reset(seed)` builds the game of that seed (same seed, same game, same texts) and whose
 * `step` plays one command. Invalid commands are answered with `info.valid = false` and
 * leave the state unchanged. The turn budget (`spec.maxTurns`) is twice the optimal plan
 * length, the paper's recommended exploration budget (§4, Table 4); the rollout enforces it.
 *
 * The env record also exposes the current game and state, so the expert can label any
 * on-policy state (`expertAction(env)`).
 *
 * @since 0.1.0
 */
import { Env, EnvError } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as Cooking from './Cooking.js'
import * as Expert from './Expert.js'
import { maxScore, outcome, score, type Game, type State } from './Game.js'
import * as Generator from './Generator.js'
import * as IntermediateReward from './IntermediateReward.js'
import * as Rules from './Rules.js'
import * as Settings from './Settings.js'
import * as Text from './Text.js'

/**
 * `admissible` (default true): list the admissible commands in every `info`. Computing them
 * costs about as much as the step itself; turn it off when the policy does not see them.
 *
 * `reward` (default `score`): what a step's `reward` is. `score`: the points the command
 * scored (the quest's milestones); `intermediate`: TextWorld's intermediate reward
 * (`IntermediateReward`: +1 a step closer to the win, -1 farther, +1 the win), which asks the
 * expert for a plan after every command. `info.score` stays the score either way.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly admissible?: boolean
  readonly reward?: 'score' | 'intermediate'
}

/**
 * An `Env` that also shows its current game and state (none before the first reset).
 *
 * @category models
 * @since 0.1.0
 */
export interface TextWorldEnv extends Env.Env {
  readonly game: () => O.Option<Game>
  readonly state: () => O.Option<State>
}

/**
 * The game of a setting for a seed.
 *
 * @category constructors
 * @since 0.1.0
 */
export const gameFor =
  (settings: Settings.Settings) =>
  (seed: number): E.Either<string, Game> => {
    switch (settings._tag) {
      case 'custom':
        return Generator.generate({ ...settings, seed })
      case 'cooking':
        return E.right(Cooking.make(settings, seed))
    }
  }

/**
 * The action format, one sentence for the policy's prompt.
 *
 * @category constants
 * @since 0.1.0
 */
export const actionFormat =
  "Reply with one command in TextWorld's grammar: go north|south|east|west, take X, take X from Y, put X on Y, insert X into Y, " +
  'drop X, open X, close X, unlock X with K, lock X with K, eat X, examine X, look, inventory.'

/**
 * The spec: name `textworld/<setting>`, `maxTurns` = 2 x the (longest) optimal plan.
 *
 * @category constructors
 * @since 0.1.0
 */
export const spec = (settings: Settings.Settings): Env.EnvSpec => ({
  name: `textworld/${Settings.format(settings)}`,
  maxTurns: 2 * Settings.longestPlan(settings),
  actionFormat
})

const infoOf = (game: Game, state: State, valid: boolean, admissible: boolean): Env.StepInfo => ({
  valid,
  score: score(state),
  maxScore: maxScore(game),
  ...(admissible ? { admissibleActions: Rules.admissible(game, state) } : {}),
  extra: { won: outcome(state) === 'won', lost: outcome(state) === 'lost', setting: game.setting, seed: game.seed }
})

/**
 * An environment for a setting.
 *
 * @example
 * import { TextWorld, Settings } from '@mtrl/env-textworld'
 * const env = TextWorld.make(Settings.custom(2, 3, 4))
 * const first = await env.reset(7)()
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (settings: Settings.Settings, options: Options = {}): TextWorldEnv => {
  const envSpec = spec(settings)
  const withAdmissible = options.admissible ?? true
  let game: Game | undefined
  let state: State | undefined
  const intermediate = options.reward === 'intermediate'
  let distance = Number.POSITIVE_INFINITY
  const reset =
    (seed: number): TE.TaskEither<EnvError.EnvError, Env.Observation> =>
    () =>
      Promise.resolve(
        E.bimap(
          (reason: string) => EnvError.resetFailed(envSpec.name, seed, reason),
          (g: Game): Env.Observation => {
            game = g
            state = g.initial
            if (intermediate) distance = Expert.distance(g)(g.initial)
            return { goal: g.objective, text: Text.describeRoom(g, g.initial), info: infoOf(g, g.initial, true, withAdmissible) }
          }
        )(gameFor(settings)(seed))
      )
  const step =
    (action: string): TE.TaskEither<EnvError.EnvError, Env.StepResult> =>
    () => {
      if (game === undefined || state === undefined) return Promise.resolve(E.left(EnvError.notStarted(envSpec.name)))
      if (outcome(state) !== 'playing') return Promise.resolve(E.left(EnvError.episodeOver(envSpec.name)))
      const out = Rules.step(game)(state, action)
      state = out.state
      let reward = out.reward
      if (intermediate) {
        const next = IntermediateReward.after(game, distance)(out.state)
        reward = next.reward
        distance = next.distance
      }
      return Promise.resolve(
        E.right({
          observation: out.feedback,
          reward,
          done: out.won || out.lost,
          won: out.won,
          info: infoOf(game, out.state, out.valid, withAdmissible)
        })
      )
    }
  const close = (): T.Task<void> => () => {
    game = undefined
    state = undefined
    return Promise.resolve()
  }
  return { spec: envSpec, reset, step, close, game: () => O.fromNullable(game), state: () => O.fromNullable(state) }
}

/**
 * A factory (one env per episode slot).
 *
 * @category constructors
 * @since 0.1.0
 */
export const factory =
  (settings: Settings.Settings, options: Options = {}): Env.EnvFactory =>
  () =>
    make(settings, options)

/**
 * A shortest winning plan from the env's current state (none before reset or after the end).
 *
 * @category destructors
 * @since 0.1.0
 */
export const expertPlan = (env: TextWorldEnv): O.Option<ReadonlyArray<string>> => {
  const game = env.game()
  const state = env.state()
  return O.isSome(game) && O.isSome(state) ? Expert.plan(game.value)(state.value) : O.none
}

/**
 * The expert's next command from the env's current state.
 *
 * @category destructors
 * @since 0.1.0
 */
export const expertAction = (env: TextWorldEnv): O.Option<string> => O.chain((p: ReadonlyArray<string>) => O.fromNullable(p[0]))(expertPlan(env))

/**
 * The game family as pipelines use it (`Env.EnvSource`): fresh envs, the expert planner
 * ({@link expertPlan}, empty when there is no plan).
 *
 * @example
 * import { Settings, TextWorld } from '@mtrl/env-textworld'
 * const source = TextWorld.source(Settings.custom(2, 3, 4))
 * const env = source.make() // reset it, then source.expertPlan?.(env) is the expert's plan
 *
 * @category constructors
 * @since 0.1.0
 */
export const source = (settings: Settings.Settings, options: Options = {}): Env.EnvSource => {
  const envSpec = spec(settings)
  return {
    name: envSpec.name,
    maxTurns: envSpec.maxTurns,
    make: factory(settings, options),
    expertPlan: (env) => O.getOrElse((): ReadonlyArray<string> => [])(expertPlan(env as TextWorldEnv)),
    dispose: () => undefined
  }
}
