/**
 * Playing episodes and printing them: what `mtrl play swe --tier easy --seed 4` wraps.
 * `expert(settings)(seed)` plays the scripted expert; `run(env, agent)(seed)` plays any agent;
 * `render` (pure) prints a transcript.
 *
 * @since 0.1.0
 */
import type { Env, EnvError } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import * as Expert from './Expert.js'
import type * as Settings from './Settings.js'
import * as Swe from './Swe.js'

/**
 * An episode as data.
 *
 * @category models
 * @since 0.1.0
 */
export interface Transcript {
  readonly env: string
  readonly seed: number
  readonly start: Env.Observation
  readonly turns: ReadonlyArray<{ readonly action: string; readonly result: Env.StepResult }>
  readonly won: boolean
  readonly return: number
}

/**
 * An agent: the next action given the last observation text and the turn number (0-based).
 *
 * @category models
 * @since 0.1.0
 */
export type Agent = (observation: string, turn: number) => T.Task<string>

/**
 * Plays one episode of `env` with `agent` until done or `env.spec.maxTurns`. Does not close the env.
 *
 * @category constructors
 * @since 0.1.0
 */
export const run =
  (env: Env.Env, agent: Agent) =>
  (seed: number): TE.TaskEither<EnvError.EnvError, Transcript> =>
  async () => {
    const start = await env.reset(seed)()
    if (E.isLeft(start)) return start
    const turns: Array<{ action: string; result: Env.StepResult }> = []
    let last = start.right.text
    for (let i = 0; i < env.spec.maxTurns; i++) {
      const action = await agent(last, i)()
      const result = await env.step(action)()
      if (E.isLeft(result)) return result
      turns.push({ action, result: result.right })
      last = result.right.observation
      if (result.right.done) break
    }
    const won = turns.at(-1)?.result.won ?? false
    return E.right({ env: env.spec.name, seed, start: start.right, turns, won, return: turns.reduce((a, t) => a + t.result.reward, 0) })
  }

/**
 * Plays the scripted expert on the task of `seed` (an episode in its own environment, closed after).
 *
 * @example
 * import { Play } from '@mtrl/env-swe'
 * // const transcript = await Play.expert({ tier: 'easy' })(4)()
 * // if (transcript._tag === 'Right') console.log(Play.render(transcript.right))
 *
 * @category constructors
 * @since 0.1.0
 */
export const expert =
  (settings: Settings.Settings, shared?: Swe.Resources) =>
  (seed: number): TE.TaskEither<EnvError.EnvError, Transcript> =>
  async () => {
    const env = Swe.make(settings, shared)
    try {
      let plan: ReadonlyArray<string> = []
      const agent: Agent = (_obs, turn) => async () => {
        if (turn === 0) plan = Expert.plan(env.task()!)
        return plan[turn] ?? 'submit'
      }
      return await run(env, agent)(seed)()
    } finally {
      await env.close()()
    }
  }

/**
 * A transcript as plain text (pure).
 *
 * @category destructors
 * @since 0.1.0
 */
export const render = (t: Transcript): string =>
  [
    `=== ${t.env} seed ${t.seed} ===`,
    `GOAL: ${t.start.goal}`,
    t.start.text,
    ...t.turns.flatMap((turn, i) => [
      `--- turn ${i + 1} ---`,
      `> ${turn.action.split('\n').join('\n  ')}`,
      turn.result.observation,
      `(reward ${turn.result.reward.toFixed(3)}${turn.result.info.valid ? '' : ', invalid action'}${turn.result.done ? ', done' : ''})`
    ]),
    `=== ${t.won ? 'WON' : 'LOST'}, return ${t.return.toFixed(3)} ===`
  ].join('\n')
