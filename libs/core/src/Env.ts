/**
 * The environment contract: one episode at a time, text in and text out, async so that
 * remote and sandboxed environments fit the same shape as in-process games.
 *
 * Invalid actions are answered, never thrown: the environment leaves its state unchanged and
 * says so with `info.valid = false`.
 *
 * @since 0.1.0
 */
import type { Task } from 'fp-ts/lib/Task.js'
import type { TaskEither } from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import type { EnvError } from './EnvError.js'

/**
 * What an environment says about the current state besides the text.
 *
 * - `valid`: whether the last action was understood and possible (true after reset);
 * - `score` / `maxScore`: the game's running score and its maximum;
 * - `admissibleActions`: commands valid in the current state, where the environment knows them;
 * - `extra`: environment-specific data (task type, tests passed, ...), JSON only.
 *
 * @category codecs
 * @since 0.1.0
 */
export const StepInfo = t.intersection([
  t.type({ valid: t.boolean, score: t.number, maxScore: t.number }),
  t.partial({
    admissibleActions: t.readonlyArray(t.string),
    extra: t.record(t.string, t.unknown)
  })
])
/** @category models @since 0.1.0 */
export type StepInfo = t.TypeOf<typeof StepInfo>

/**
 * The start of an episode: the goal (what the agent must achieve) and the first text.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Observation = t.type({ goal: t.string, text: t.string, info: StepInfo })
/** @category models @since 0.1.0 */
export type Observation = t.TypeOf<typeof Observation>

/**
 * The answer to one action.
 *
 * - `reward`: the environment's own signal for this step (e.g. the score delta);
 * - `done`: the episode is over, won or lost;
 * - `won`: the goal was reached.
 *
 * @category codecs
 * @since 0.1.0
 */
export const StepResult = t.type({
  observation: t.string,
  reward: t.number,
  done: t.boolean,
  won: t.boolean,
  info: StepInfo
})
/** @category models @since 0.1.0 */
export type StepResult = t.TypeOf<typeof StepResult>

/**
 * What an environment is: its name, its default turn budget, and how actions must be written
 * (a sentence for the policy's prompt).
 *
 * @category codecs
 * @since 0.1.0
 */
export const EnvSpec = t.type({
  name: t.string,
  maxTurns: t.number,
  actionFormat: t.string
})
/** @category models @since 0.1.0 */
export type EnvSpec = t.TypeOf<typeof EnvSpec>

/**
 * One episode at a time. `reset(seed)` starts a new episode (same seed, same episode);
 * `step(action)` answers one action; `close` frees what the environment holds.
 *
 * @category models
 * @since 0.1.0
 */
export interface Env {
  readonly spec: EnvSpec
  readonly reset: (seed: number) => TaskEither<EnvError, Observation>
  readonly step: (action: string) => TaskEither<EnvError, StepResult>
  readonly close: () => Task<void>
}

/**
 * Makes environments: one call per episode slot, so slots never share state.
 *
 * @category models
 * @since 0.1.0
 */
export type EnvFactory = () => Env

/**
 * An environment family as pipelines use it: its name and turn budget, fresh environments (one
 * per episode slot), and, where the family has them, its expert and its task types. Each
 * environment library builds its own (`TextWorld.source`, `AlfWorld.source`, `Swe.source`,
 * `HttpEnv.source`); a source that holds shared resources (a sandbox pool) frees them in
 * `dispose`.
 *
 * - `expertPlan(env)`: the expert's plan from the current state of an environment made by this
 *   source's `make` (after `reset`); empty when the expert has none for that state. Absent when
 *   the family has no expert (SFT on it needs recorded demonstrations);
 * - `taskType(seed)`: the task type an episode seed plays, for families with task types.
 *
 * @category models
 * @since 0.1.0
 */
export interface EnvSource {
  readonly name: string
  readonly maxTurns: number
  readonly make: EnvFactory
  readonly expertPlan?: (env: Env) => ReadonlyArray<string>
  readonly taskType?: (seed: number) => string
  readonly dispose: () => void
}
