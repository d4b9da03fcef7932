/**
 * Playing a game by hand or by the expert, as pure data: a session is started from options,
 * advanced one command at a time, and rendered as a transcript. UI-free: the CLI's
 * `mtrl play alfworld --task T --split S --seed N` decodes its flags with {@link Options}, calls
 * {@link start}, then {@link step} per line the user types (printing {@link lastTurnText}),
 * or {@link expert} + {@link render} to show the expert's solution.
 *
 * @since 0.1.0
 */
import type { Env } from '@mtrl/core'
import * as O from 'fp-ts/lib/Option.js'
import * as t from 'io-ts'
import { advance, begin, type Rules } from './internal/episode.js'
import * as Expert from './Expert.js'
import type * as Game from './Game.js'
import * as Scene from './Scene.js'
import { Split } from './Split.js'
import { TaskType, taskTypes } from './Task.js'
import * as AlfWorld from './AlfWorld.js'

/**
 * What to play: the seed, and optionally split, task type (all types when absent), turn
 * budget and dense reward. Mirrors the CLI flags.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.intersection([
  t.type({ seed: t.number }),
  t.partial({ split: Split, task: TaskType, maxTurns: AlfWorld.Settings.props.maxTurns, denseReward: t.boolean })
])
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * One played turn.
 *
 * @category models
 * @since 0.1.0
 */
export interface Turn {
  readonly action: string
  readonly result: Env.StepResult
}

/**
 * A game in progress or finished.
 *
 * @category models
 * @since 0.1.0
 */
export interface Session {
  readonly name: string
  readonly rules: Rules
  readonly start: Env.Observation
  readonly state: Game.State
  readonly turns: ReadonlyArray<Turn>
  readonly done: boolean
  readonly won: boolean
}

/**
 * Builds the game the options name (the same game `AlfWorld.make` gives for that seed, split
 * and single task type).
 *
 * @category constructors
 * @since 0.1.0
 */
export const start = (options: Options): Session => {
  const split = options.split ?? 'train'
  const game = Scene.generate(split, options.task === undefined ? taskTypes : [options.task])(options.seed)
  const rules = { maxTurns: options.maxTurns ?? AlfWorld.defaults.maxTurns, denseReward: options.denseReward ?? false }
  const { episode, observation } = begin(game, rules)
  return { name: `alfworld/${split}`, rules, start: observation, state: episode.state, turns: [], done: false, won: false }
}

/**
 * Plays one command; a finished session is returned unchanged.
 *
 * @category combinators
 * @since 0.1.0
 */
export const step =
  (action: string) =>
  (session: Session): Session => {
    if (session.done) return session
    const played = advance(action)({ rules: session.rules, state: session.state, turn: session.turns.length, done: false, won: false })
    return {
      ...session,
      state: played.episode.state,
      turns: [...session.turns, { action, result: played.result }],
      done: played.episode.done,
      won: played.episode.won
    }
  }

/**
 * Plays the expert's plan from the session's current state to the end.
 *
 * @category combinators
 * @since 0.1.0
 */
export const finishWithExpert = (session: Session): Session =>
  O.match(
    () => session,
    (plan: ReadonlyArray<string>) => plan.reduce((s, action) => step(action)(s), session)
  )(Expert.plan(session.state))

/**
 * The expert's solution of the game the options name.
 *
 * @example
 * import { Play } from '@mtrl/env-alfworld'
 * console.log(Play.render(Play.expert({ task: 'pick_heat_then_place_in_recep', split: 'valid-unseen', seed: 3 })))
 *
 * @category constructors
 * @since 0.1.0
 */
export const expert = (options: Options): Session => finishWithExpert(start(options))

/**
 * The text of the last turn: `> action`, the feedback, and the outcome once finished.
 *
 * @category destructors
 * @since 0.1.0
 */
export const lastTurnText = (session: Session): string => {
  const last = session.turns[session.turns.length - 1]
  if (last === undefined) return session.start.text
  return [`> ${last.action}`, last.result.observation, ...(session.done ? [outcome(session)] : [])].join('\n')
}

const outcome = (session: Session): string => {
  const last = session.turns[session.turns.length - 1]
  const score = last === undefined ? '' : ` (score ${last.result.info.score}/${last.result.info.maxScore})`
  return session.won ? `*** Won in ${session.turns.length} turns${score} ***` : `*** Out of turns after ${session.turns.length}${score} ***`
}

/**
 * The whole transcript: a header naming the game, the opening text, then every turn.
 *
 * @category destructors
 * @since 0.1.0
 */
export const render = (session: Session): string => {
  const { game } = session.state
  const header = `${session.name} seed ${game.seed}: ${game.task.type} (${game.scene.room}, layout ${game.scene.layout})`
  const turns = session.turns.map((turn) => `> ${turn.action}\n${turn.result.observation}`)
  return [header, '', session.start.text, '', ...turns, ...(session.done ? [outcome(session)] : [])].join('\n')
}
