/**
 * One SWE episode's state and what it is worth: the last known status of every expected test
 * (updated by each test run), the turn, and what the dense reward has paid out so far.
 */
import type { Env } from '@mtrl/core'
import type * as Settings from '../Settings.js'
import type * as Task from '../Task.js'
import type * as Workspace from '../Workspace.js'

/** A live episode; the host mutates it turn by turn. */
export interface Episode {
  readonly task: Task.Task
  readonly ws: Workspace.Workspace
  turn: number
  done: boolean
  /** Last known status of every expected test. */
  readonly status: Map<string, boolean>
  /** The value the dense reward has paid out so far. */
  paid: number
}

/** An episode at turn 0: the tests the task fails are known to fail, the others to pass. */
export const begin = (task: Task.Task, ws: Workspace.Workspace): Episode => {
  const status = new Map(task.expected.map((n) => [n, !task.failing.includes(n)] as const))
  return { task, ws, turn: 0, done: false, status, paid: 0 }
}

/** How many of the expected tests are known to pass. */
export const known = (e: Episode): { passed: number; total: number } => ({ passed: [...e.status.values()].filter(Boolean).length, total: e.status.size })

/** What `passed` of `total` tests are worth: their share (`fraction`), or 1 only if all pass (`binary`). */
export const value =
  (reward: Settings.Resolved['reward']) =>
  (k: { readonly passed: number; readonly total: number }): number =>
    reward === 'binary' ? (k.passed === k.total ? 1 : 0) : k.total === 0 ? 0 : k.passed / k.total

/** The step info: the last measured value as the score, and the counts, turn and task in `extra`. */
export const info =
  (reward: Settings.Resolved['reward']) =>
  (e: Episode, valid: boolean, extra: Record<string, unknown> = {}): Env.StepInfo => {
    const k = known(e)
    return { valid, score: value(reward)(k), maxScore: 1, extra: { ...k, turn: e.turn, task: e.task.id, ...extra } }
  }
