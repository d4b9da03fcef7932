/**
 * Playing a game as text, without any UI: a session advanced one command at a time, and a
 * transcript of a whole sequence of commands (optionally finished by the expert). The CLI's
 * `mtrl play textworld` wraps these; they never print.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as Expert from './Expert.js'
import { maxScore, outcome, score, type Game, type State } from './Game.js'
import * as Rules from './Rules.js'
import * as Settings from './Settings.js'
import * as Text from './Text.js'
import { gameFor } from './TextWorld.js'

/**
 * A game being played.
 *
 * @category models
 * @since 0.1.0
 */
export interface Session {
  readonly game: Game
  readonly state: State
  readonly turn: number
}

/**
 * `admissible`: show the admissible commands after every answer; `expert`: after the given
 * commands, let the expert play to the end.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly settings: Settings.Settings
  readonly seed: number
  readonly admissible?: boolean
  readonly expert?: boolean
}

const status = (session: Session, admissible: boolean): string => {
  const line = `[score ${score(session.state)}/${maxScore(session.game)}, turn ${session.turn}]`
  return admissible && outcome(session.state) === 'playing' ? `${line}\n[admissible: ${Rules.admissible(session.game, session.state).join(' | ')}]` : line
}

/**
 * Starts a session: the header, the objective and the first room.
 *
 * @category constructors
 * @since 0.1.0
 */
export const start = (settings: Settings.Settings, seed: number): E.Either<string, { readonly session: Session; readonly text: string }> =>
  E.map((game: Game) => {
    const session = { game, state: game.initial, turn: 0 }
    const objective = game.objective === '' ? '' : `${game.objective}\n\n`
    return { session, text: `textworld/${game.setting}, seed ${seed}\n\n${objective}${Text.describeRoom(game, game.initial)}` }
  })(gameFor(settings)(seed))

/**
 * Plays one command: the new session and the answer.
 *
 * @category combinators
 * @since 0.1.0
 */
export const send = (session: Session, command: string): { readonly session: Session; readonly text: string; readonly valid: boolean } => {
  const out = Rules.step(session.game)(session.state, command)
  return { session: { game: session.game, state: out.state, turn: session.turn + 1 }, text: out.feedback, valid: out.valid }
}

/**
 * The transcript of a game played with `commands` (then by the expert if `expert` is set).
 * Commands after the end of the episode are ignored.
 *
 * @example
 * import { Play, Settings } from '@mtrl/env-textworld'
 * const text = Play.transcript({ settings: Settings.custom(2, 3, 4), seed: 7, expert: true })([])
 *
 * @category destructors
 * @since 0.1.0
 */
export const transcript =
  (options: Options) =>
  (commands: ReadonlyArray<string>): E.Either<string, string> =>
    E.map(({ session, text }: { readonly session: Session; readonly text: string }) => {
      const admissible = options.admissible ?? false
      const parts = [text, status(session, admissible)]
      let current = session
      const play = (command: string, by: string): void => {
        const out = send(current, command)
        current = out.session
        parts.push(`> ${command}${by}${out.valid ? '' : '  (invalid)'}`, out.text, status(current, admissible))
      }
      for (const command of commands) {
        if (outcome(current.state) !== 'playing') break
        play(command, '')
      }
      if (options.expert === true && outcome(current.state) === 'playing') {
        const plan = Expert.plan(current.game)(current.state)
        if (O.isSome(plan)) for (const command of plan.value) play(command, '  (expert)')
        else parts.push('(the expert finds no winning plan from here)')
      }
      return parts.join('\n\n')
    })(start(options.settings, options.seed))
