/**
 * The scripted expert, for SFT data: it looks around, runs the tests, applies the gold patch,
 * re-runs the tests and submits. Replaying it always wins (a property test checks this).
 *
 * @since 0.1.0
 */
import * as Edit from './Edit.js'
import type * as Task from './Task.js'

/**
 * The expert's actions for a task, in order.
 *
 * @category constructors
 * @since 0.1.0
 */
export const plan = (task: Task.Task): ReadonlyArray<string> => [
  'ls',
  'ls src',
  'run_tests',
  ...task.gold.map((e) => `cat ${e.file}`),
  ...task.gold.map(Edit.render),
  'run_tests',
  'submit'
]
