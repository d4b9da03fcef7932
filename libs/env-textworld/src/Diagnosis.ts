/**
 * Why a policy lost a game: the first mistake of an episode, found by replaying its commands
 * against the game and asking the expert, before each command, how far the win is. A command is
 * a step when it brings the shortest winning plan one command closer; the first command that is
 * not a step is the episode's first mistake, of one kind:
 *
 * - `unparsed`: not a command of the grammar ("take belt cabinet canister" has no verb form);
 * - `unknown-name`: names something this game does not have (a word not copied from the goal
 *   or the room: "put melon on bed stand");
 * - `elsewhere`: names things of this game, one of them out of reach (another room, a closed
 *   container): a step of the goal tried in the wrong place or before fetching its object;
 * - `not-ready`: everything named is within reach but the command's condition fails (putting
 *   what it does not hold, opening what is open, walking through a closed door);
 * - `no-exit`: walks where the room has no exit;
 * - `detour`: a valid command that is no step (into the wrong container, the wrong way).
 *
 * `mtrl failures` counts these over `mtrl eval --transcripts` files.
 *
 * @since 0.3.0
 */
import * as O from 'fp-ts/lib/Option.js'
import { parse, type Command } from './Command.js'
import * as Expert from './Expert.js'
import { outcome, PLAYER, type Game, type State } from './Game.js'
import * as Rules from './Rules.js'

/** @category models @since 0.3.0 */
export type Mistake = 'unparsed' | 'unknown-name' | 'elsewhere' | 'not-ready' | 'no-exit' | 'detour'

/** The kinds, in the order reports list them. @category constants @since 0.3.0 */
export const mistakes: ReadonlyArray<Mistake> = ['unknown-name', 'unparsed', 'elsewhere', 'not-ready', 'no-exit', 'detour']

/**
 * An episode's outcome under the game's rules and its first mistake (none when every command
 * was a step); `turn` counts from 0.
 *
 * @category models
 * @since 0.3.0
 */
export interface Diagnosis {
  /** The verb of the quest's last command (`put`, `insert`, `eat`): which kind of goal it was. */
  readonly questEnd: string
  readonly won: boolean
  readonly commands: number
  readonly firstMistake: O.Option<{ readonly turn: number; readonly command: string; readonly kind: Mistake }>
}

const named = (command: Command): ReadonlyArray<number> => {
  switch (command._tag) {
    case 'Take':
      return command.from < 0 ? [command.item] : [command.item, command.from]
    case 'Put':
    case 'Insert':
      return [command.item, command.holder]
    case 'Drop':
    case 'Eat':
      return [command.item]
    case 'Open':
    case 'Close':
    case 'Examine':
      return [command.target]
    case 'Unlock':
    case 'Lock':
      return [command.target, command.key]
    default:
      return []
  }
}

/** The kind of an invalid command in `state`. */
const invalidKind = (game: Game, state: State, command: Command): Mistake => {
  switch (command._tag) {
    case 'UnknownVerb':
      return 'unparsed'
    case 'UnknownNoun':
      return 'unknown-name'
    case 'Go':
      return game.exits[4 * state[PLAYER]! + command.dir]! < 0 ? 'no-exit' : 'not-ready'
    default:
      return named(command).some((e) => Rules.reach(game, state, e) === undefined) ? 'elsewhere' : 'not-ready'
  }
}

/**
 * Replays `commands` from the game's start (commands after the end of the episode are
 * ignored) and finds the first one that is not a step towards the win.
 *
 * @example
 * import { Diagnosis, Generator } from '@mtrl/env-textworld'
 * const game = Generator.generateOrThrow({ rooms: 2, objects: 3, questLength: 4, seed: 7 })
 * Diagnosis.diagnose(game)(game.quest.walkthrough).firstMistake // none: the walkthrough makes no mistake
 *
 * @category destructors
 * @since 0.3.0
 */
export const diagnose =
  (game: Game) =>
  (commands: ReadonlyArray<string>): Diagnosis => {
    let state = game.initial
    let first: Diagnosis['firstMistake'] = O.none
    let played = 0
    for (const [turn, text] of commands.entries()) {
      if (outcome(state) !== 'playing') break
      const command = parse(game)(text)
      const out = Rules.apply(game, state, command)
      played++
      if (O.isNone(first)) {
        // the expert's search runs only until the first mistake is found
        const step = out.valid && (out.won || Expert.distance(game)(out.state) === Expert.distance(game)(state) - 1)
        if (!step) first = O.some({ turn, command: text, kind: out.valid ? 'detour' : invalidKind(game, state, command) })
      }
      state = out.state
    }
    const last = game.quest.walkthrough[game.quest.walkthrough.length - 1] ?? ''
    return { questEnd: last.split(' ')[0] ?? '', won: outcome(state) === 'won', commands: played, firstMistake: first }
  }

/**
 * Counts over many episodes: how many were won and lost, the kinds of the lost games' first
 * mistakes, the mean turn of those mistakes (NaN when none), how many won games had a mistake
 * (recovered from it), and the success per quest ending.
 *
 * @category models
 * @since 0.3.0
 */
export interface Tally {
  readonly episodes: number
  readonly won: number
  readonly lost: number
  readonly firstMistakes: Readonly<Record<Mistake, number>>
  readonly meanMistakeTurn: number
  readonly recovered: number
  /** Episodes and wins per quest ending (`Diagnosis.questEnd`), most frequent first. */
  readonly byQuestEnd: ReadonlyArray<{ readonly questEnd: string; readonly episodes: number; readonly won: number }>
}

/**
 * @example
 * import { Diagnosis, Generator } from '@mtrl/env-textworld'
 * const game = Generator.generateOrThrow({ rooms: 2, objects: 3, questLength: 4, seed: 7 })
 * Diagnosis.tally([Diagnosis.diagnose(game)(['look'])]).firstMistakes.detour // 1
 *
 * @category destructors
 * @since 0.3.0
 */
export const tally = (diagnoses: ReadonlyArray<Diagnosis>): Tally => {
  const firstMistakes = Object.fromEntries(mistakes.map((m) => [m, 0])) as Record<Mistake, number>
  let turns = 0
  let recovered = 0
  for (const d of diagnoses)
    O.match(
      () => undefined,
      (m: { readonly turn: number; readonly kind: Mistake }) => {
        if (d.won) recovered++
        else {
          firstMistakes[m.kind]++
          turns += m.turn
        }
      }
    )(d.firstMistake)
  const won = diagnoses.filter((d) => d.won).length
  const mistaken = Object.values(firstMistakes).reduce((a, b) => a + b, 0)
  const ends = new Map<string, { episodes: number; won: number }>()
  for (const d of diagnoses) {
    const e = ends.get(d.questEnd) ?? { episodes: 0, won: 0 }
    ends.set(d.questEnd, { episodes: e.episodes + 1, won: e.won + (d.won ? 1 : 0) })
  }
  const byQuestEnd = [...ends].map(([questEnd, e]) => ({ questEnd, ...e })).sort((a, b) => b.episodes - a.episodes || a.questEnd.localeCompare(b.questEnd))
  return {
    episodes: diagnoses.length,
    won,
    lost: diagnoses.length - won,
    firstMistakes,
    meanMistakeTurn: mistaken === 0 ? Number.NaN : turns / mistaken,
    recovered,
    byQuestEnd
  }
}
