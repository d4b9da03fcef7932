/**
 * An episode in play: what its slot has seen and done so far. It becomes an `Episode` when it
 * ends (`episodeLifecycle.ts`).
 */
import type { Env, Trajectory } from '@mtrl/core'
import type * as Memory from '../Memory.js'

/**
 * An open episode, updated in place turn by turn.
 *
 * - `segments`: in `full` memory the whole token sequence so far; in `window` memory the
 *   current turn's prompt and action;
 * - `samples`, `past`, `current`: `window` memory only: the finished turns' samples, the turns
 *   the window renders, and the current observation's text;
 * - `admissible`: the environment's admissible actions now, if it lists them;
 * - `replies`: every reply's reasoning and action, for the action-hacking count.
 */
export interface OpenEpisode {
  readonly slot: number
  readonly index: number
  readonly env: Env.Env
  readonly seed: number
  readonly groupId: string
  readonly goal: string
  readonly segments: Trajectory.Segment[]
  readonly turns: Trajectory.Turn[]
  readonly rewards: number[]
  readonly samples: Trajectory.Trajectory[]
  readonly past: Memory.PastTurn[]
  current: string
  admissible: ReadonlyArray<string> | undefined
  readonly replies: Array<{ readonly reasoning: string; readonly action: string }>
}

/** The `index`-th episode of `slot`, just reset to `start`, before any token enters its context. */
export const openEpisode = (slot: number, index: number, env: Env.Env, seed: number, start: Env.Observation): OpenEpisode => ({
  slot,
  index,
  env,
  seed,
  groupId: `${env.spec.name}:${seed}`,
  goal: start.goal,
  segments: [],
  turns: [],
  rewards: [],
  samples: [],
  past: [],
  current: start.text,
  admissible: start.info.admissibleActions,
  replies: []
})
