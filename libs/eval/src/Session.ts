/**
 * An environment played by hand: one game of a source, driven by a stream of commands (a
 * terminal's lines, a pipe) or by the source's expert, written out as a person reads it: the goal
 * and first observation, then each command with its answer and a status line (score, turn,
 * invalid, and the admissible commands when asked), ending with the win or the loss. What
 * `mtrl play` runs.
 *
 * @since 0.2.0
 */
import { EnvError, type Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'

/**
 * - `seed`: the game;
 * - `admissible`: list the admissible commands after each status line;
 * - `expert`: play the expert's plan instead of the commands;
 * - `out`: where each block of text goes (the caller adds its line end);
 * - `prompt`: called when the next command is awaited (a terminal shows `> `).
 *
 * @category models
 * @since 0.2.0
 */
export interface Options {
  readonly seed: number
  readonly admissible?: boolean
  readonly expert?: boolean
  readonly out: (text: string) => void
  readonly prompt?: () => void
}

/**
 * The status line after a reset or a step: `[score 1/3, turn 2, invalid]`, and the admissible
 * commands on a second line when asked and known.
 *
 * @category destructors
 * @since 0.2.0
 */
export const statusLine = (info: Env.StepInfo, turn: number, admissible: boolean): string => {
  const line = `[score ${info.score}/${info.maxScore}, turn ${turn}${info.valid ? '' : ', invalid'}]`
  return admissible && info.admissibleActions !== undefined ? `${line}\n[admissible: ${info.admissibleActions.join(' | ')}]` : line
}

type Step = (command: string, by: string) => Promise<E.Either<EnvError.EnvError, boolean>>

/** Writes a step and says whether the game is over. */
const stepper = (env: Env.Env, options: Options): Step => {
  let turn = 0
  return async (command, by) => {
    const step = await env.step(command)()
    if (E.isLeft(step)) return step
    turn += 1
    const { observation, info, done, won } = step.right
    const ending = done ? (won ? '\n*** You won! ***' : '\n*** You lost. ***') : ''
    options.out(`> ${command}${by}\n\n${observation}\n\n${statusLine(info, turn, options.admissible === true)}${ending}`)
    return E.right(done)
  }
}

/** The expert's plan, stated, then played until the game ends. */
const playExpert = async (source: Env.EnvSource, env: Env.Env, step: Step, out: (text: string) => void): Promise<E.Either<EnvError.EnvError, void>> => {
  const plan = source.expertPlan?.(env) ?? []
  out(`expert plan (${plan.length} steps): ${plan.join(' ; ')}`)
  for (const command of plan) {
    const acted = await step(command, '  (expert)')
    if (E.isLeft(acted)) return acted
    if (acted.right) break
  }
  return E.right(undefined)
}

/** The commands played until `quit` or `exit`, the game's end, its turn limit, or the stream's end; blank lines are skipped. */
const playCommands = async (
  source: Env.EnvSource,
  step: Step,
  commands: AsyncIterable<string>,
  prompt: () => void
): Promise<E.Either<EnvError.EnvError, void>> => {
  let turns = 0
  prompt()
  for await (const line of commands) {
    const command = line.trim()
    if (command === '') continue
    if (command === 'quit' || command === 'exit') break
    const acted = await step(command, '')
    if (E.isLeft(acted)) return acted
    turns += 1
    if (acted.right || turns >= source.maxTurns) break
    prompt()
  }
  return E.right(undefined)
}

/**
 * Plays one game of `source` (made, reset to `options.seed`, closed at the end; the source is the
 * caller's), from `commands` or by the expert; an environment's error ends it.
 *
 * @example
 * import { Session } from '@mtrl/eval'
 * declare const source: import('@mtrl/core').Env.EnvSource
 * await Session.play(source, { seed: 7, out: console.log })(['go north', 'take key'])()
 *
 * @category constructors
 * @since 0.2.0
 */
export const play =
  (source: Env.EnvSource, options: Options) =>
  (commands: AsyncIterable<string> | Iterable<string>): TaskEither<EnvError.EnvError, void> =>
  async () => {
    const env = source.make()
    try {
      const start = await env.reset(options.seed)()
      if (E.isLeft(start)) return start
      const { goal, text, info } = start.right
      options.out(`${source.name}, seed ${options.seed}\n\n${goal}\n\n${text}\n\n${statusLine(info, 0, options.admissible === true)}`)
      const step = stepper(env, options)
      if (options.expert === true) return await playExpert(source, env, step, options.out)
      return await playCommands(source, step, toAsync(commands), options.prompt ?? (() => undefined))
    } finally {
      await env.close()()
    }
  }

const toAsync = (commands: AsyncIterable<string> | Iterable<string>): AsyncIterable<string> =>
  Symbol.asyncIterator in commands
    ? commands
    : (async function* () {
        yield* commands
      })()
