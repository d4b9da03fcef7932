/**
 * Experts as agents, to record their episodes in the same chat format as a policy's: one that
 * reads the environment's state (`expertAction(env)`), one that replays a list of actions.
 *
 * @since 0.1.0
 */
import type { Env } from '@mtrl/core'
import type { Option } from 'fp-ts/lib/Option.js'
import type { Agent } from './Episode.js'

/**
 * The agent that asks `expertAction` for each move, given the environment being played (so it
 * can read its state, as `TextWorld.expertAction` and `AlfWorld` + `Expert.next` do). `none`,
 * `undefined` or a rejection ends the episode with `AgentFailed`.
 *
 * @example
 * import { Expert } from '@mtrl/env-http'
 * import { TextWorld } from '@mtrl/env-textworld'
 * const agent = Expert.fromEnv(TextWorld.expertAction)
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromEnv =
  <E extends Env.Env>(expertAction: (env: E) => Option<string> | string | undefined | Promise<string>): Agent<E> =>
  async (history) => {
    const action = await expertAction(history.env)
    if (typeof action === 'string') return action
    if (action !== undefined && action._tag === 'Some') return action.value
    throw new Error(`the expert has no action at turn ${history.turns.length}`)
  }

/**
 * The agent that plays `plan(seed)` action by action, and fails if the episode outlasts it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const replay =
  (plan: (seed: number) => ReadonlyArray<string>): Agent =>
  async (history) => {
    const actions = plan(history.seed)
    const action = actions[history.turns.length]
    if (action === undefined) throw new Error(`the plan for seed ${history.seed} has only ${actions.length} actions`)
    return action
  }

/**
 * The agent that plays `actions`, whatever the seed.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromActions = (actions: ReadonlyArray<string>): Agent => replay(() => actions)
