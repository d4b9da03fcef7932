/**
 * A pretraining transcript: one game played by the behaviour policy ({@link Behaviour}), as
 * text: the goal, the first observation, then each command and the environment's answer. Text
 * first, tokens later ({@link Render}): the tokenizer of a model trained from scratch is built
 * from these texts ({@link texts}) before any token exists.
 *
 * @since 0.1.0
 */
import type { Env, EnvError, Rng } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as Behaviour from './Behaviour.js'

/**
 * One turn: the command, whether the behaviour policy drew it from the admissible commands or
 * made it up (`free-form`), the environment's answer and whether it accepted the command.
 *
 * @category models
 * @since 0.1.0
 */
export interface Step {
  readonly action: string
  readonly kind: Behaviour.Move['kind']
  readonly observation: string
  readonly valid: boolean
}

/**
 * A game as played: the environment's name and seed, the goal and first observation, the steps,
 * and how it ended (`won`, `done`: over before the turn budget).
 *
 * @category models
 * @since 0.1.0
 */
export interface Transcript {
  readonly env: string
  readonly seed: number
  readonly goal: string
  readonly text: string
  readonly steps: ReadonlyArray<Step>
  readonly won: boolean
  readonly done: boolean
}

/**
 * `maxTurns`: the turn budget of a game; `behaviour`: the behaviour policy's options.
 *
 * @category models
 * @since 0.1.0
 */
export interface PlayOptions {
  readonly maxTurns: number
  readonly behaviour: Behaviour.Options
}

/**
 * Plays `env` from `reset(seed)` with the behaviour policy (moves drawn from `rng`) until the game
 * ends, the turn budget is spent, or no command is admissible. Only `reset` and `step` are called:
 * no expert.
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { Settings, TextWorld } from '@mtrl/env-textworld'
 * import { Behaviour, Transcript } from '@mtrl/pretrain'
 * const env = TextWorld.make(Settings.custom(2, 3, 4))
 * const transcript = await Transcript.play({ maxTurns: 8, behaviour: Behaviour.defaultOptions })(env, 2_200_000_000, Rng.make(0))()
 *
 * @category constructors
 * @since 0.1.0
 */
export const play =
  (options: PlayOptions) =>
  (env: Env.Env, seed: number, rng: Rng.Rng): TE.TaskEither<EnvError.EnvError, Transcript> =>
  async () => {
    const start = await env.reset(seed)()
    if (E.isLeft(start)) return start
    const choose = Behaviour.choose(options.behaviour)
    const steps: Step[] = []
    let admissible = start.right.info.admissibleActions ?? []
    let won = false
    let done = false
    while (!done && steps.length < options.maxTurns) {
      const move = choose(admissible, rng)
      if (move === undefined) break
      const result = await env.step(move.action)()
      if (E.isLeft(result)) return result
      const r = result.right
      steps.push({ action: move.action, kind: move.kind, observation: r.observation, valid: r.info.valid })
      admissible = r.info.admissibleActions ?? []
      done = r.done
      won = r.won
    }
    return E.right({ env: env.spec.name, seed, goal: start.right.goal, text: start.right.text, steps, won, done })
  }

/**
 * The texts of a transcript a word tokenizer learns from, in order: the goal, the first
 * observation, then each command (as `replies` writes it: default as it is; e.g. also as a tool
 * call) and its answer.
 *
 * @category destructors
 * @since 0.1.0
 */
export const texts =
  (replies: (action: string) => ReadonlyArray<string> = (action) => [action]) =>
  (transcript: Transcript): ReadonlyArray<string> => [
    transcript.goal,
    transcript.text,
    ...transcript.steps.flatMap((s) => [...replies(s.action), s.observation])
  ]
