import * as E from 'fp-ts/lib/Either.js'
import * as Action from '../Action.js'
import * as Report from '../Report.js'
import * as Suite from '../Suite.js'
import type * as Task from '../Task.js'

/** Cuts text to `max` characters with a clear marker saying how much was dropped. */
export const truncate =
  (max: number) =>
  (text: string): string =>
    text.length <= max ? text : `${text.slice(0, max)}\n[output truncated: ${text.length - max} more characters not shown]`

const firstLine = (s: string): string =>
  s
    .split('\n')
    .find((l) => l.trim() !== '')
    ?.trim() ?? ''

/** The head and tail of a crash's stderr: the error is at the top, the call site at the bottom. */
const excerpt = (stderr: string): string => {
  const lines = stderr.trim().split('\n')
  return lines.length <= 14 ? lines.join('\n') : [...lines.slice(0, 7), `[... ${lines.length - 14} lines ...]`, ...lines.slice(-7)].join('\n')
}

/** The test's own name in a qualified `file > name`. */
export const testName = (qualified: string): string => qualified.slice(qualified.indexOf(' > ') + 3)

/** The expected tests a `run_tests NAME` selects (all without a filter). */
export const selected = (expected: ReadonlyArray<string>, filter: string | undefined): ReadonlyArray<string> =>
  filter === undefined ? expected : expected.filter((n) => testName(n).includes(filter))

/** The text of a test-run observation: one line per selected test, notes on the files' runs, a summary. */
export const suiteReport = (result: Suite.SuiteResult, expected: ReadonlyArray<string>, filter: string | undefined): string => {
  const chosen = selected(expected, filter)
  const byName = new Map(result.outcomes.map((o) => [Suite.qualified(o), o]))
  const lines = chosen.flatMap((name) => {
    const o = byName.get(name)
    return o === undefined ? [] : [o.passed ? `PASS ${name}` : `FAIL ${name}: ${firstLine(o.message)}`]
  })
  const notes: string[] = []
  for (const { file, result: r, report } of result.runs) {
    if (r.timedOut) notes.push(`[${file}: killed after the wall-clock limit]`)
    else if (r.outputExceeded) notes.push(`[${file}: killed, output limit exceeded]`)
    else if (E.isLeft(report))
      notes.push(`[${file}: exited with ${r.exitCode ?? r.signal}; ${Report.describe(report.left)}; its tests count as failed]\n${excerpt(r.stderr)}`)
  }
  const { passed } = Suite.score(chosen, result.outcomes)
  const summary = filter === undefined ? `${passed}/${chosen.length} tests passed` : `${passed}/${chosen.length} selected tests passed`
  return [...lines, ...notes, summary].join('\n')
}

/** The text of a test run that could not start: its selected tests count as failed. */
export const notRunReport = (reason: string, expected: ReadonlyArray<string>, filter: string | undefined): string =>
  `[the test run could not start: ${reason}; its tests count as failed]\n0/${selected(expected, filter).length} ${filter === undefined ? '' : 'selected '}tests passed`

/** The goal of an episode on `task`. */
export const goal = (task: Task.Task): string => `Fix the bugs in the ${task.project.name} repository so that its whole test suite passes.`

/** The first observation of an episode: the repository, its files, the failing tests, the rules and the action format. */
export const briefing = (task: Task.Task): string =>
  [
    `Repository ${task.project.name}: ${task.project.description}.`,
    `Files:\n${Object.keys(task.files)
      .sort()
      .map((f) => `  ${f}`)
      .join('\n')}`,
    `Run with node's test runner; ${task.expected.length} tests, of which these fail:\n${task.failing.map((f) => `  ${f}`).join('\n')}`,
    'Change the source, not the tests: the tests always run as originally written, and the test files are restored before scoring.',
    Action.usage
  ].join('\n\n')

/**
 * The last observation: the last action's text (`prefix`, may be empty), why the episode ended,
 * whether the test files were restored, and the final test run's `report`.
 */
export const finalReport = (options: {
  readonly prefix: string
  readonly truncated: boolean
  readonly unrestored: ReadonlyArray<string>
  readonly report: string
}): string => {
  const { prefix, truncated, unrestored, report } = options
  const restored =
    unrestored.length === 0 ? 'test files restored' : `test files restored, except: ${unrestored.join('; ')}; the original sources ran all the same`
  return `${prefix}${prefix === '' ? '' : '\n\n'}${truncated ? 'Turn limit reached.' : 'Submitted.'} Final test run (${restored}):\n${report}`
}
