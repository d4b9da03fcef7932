import * as E from 'fp-ts/lib/Either.js'
import * as Action from '../Action.js'
import * as Report from '../Report.js'
import * as Sandbox from '../Sandbox.js'
import * as Suite from '../Suite.js'
import type * as Task from '../Task.js'

/** Cuts text to `max` characters with a clear marker saying how much was dropped. */
export const truncate =
  (max: number) =>
  (text: string): string =>
    text.length <= max ? text : `${text.slice(0, max)}\n[output truncated: ${text.length - max} more characters not shown]`

/**
 * As `truncate`, but the last line (a test run's `N/M tests passed`) is always kept: the cut is
 * made in what comes before it.
 */
export const truncateKeepingLast =
  (max: number) =>
  (text: string): string => {
    if (text.length <= max) return text
    const at = text.lastIndexOf('\n')
    const last = text.slice(at + 1)
    return `${truncate(Math.max(0, max - last.length - 1))(text.slice(0, Math.max(0, at)))}\n${last}`
  }

/** How much of the code's console output a test-run observation shows: per test, and in all. */
export const outputLimits = { perTest: 800, total: 2400, lineChars: 300 } as const

/** One block of console output, indented under its test, within `room` characters (marked where cut). */
const outputBlock = (text: string, room: number): string => {
  const body = text.replace(/\n+$/, '')
  const kept = body.slice(0, Math.max(0, Math.min(room, outputLimits.perTest)))
  const lines = kept.split('\n').map((l) => `  | ${l.length > outputLimits.lineChars ? `${l.slice(0, outputLimits.lineChars)} [...]` : l}`)
  const cut = body.length - kept.length
  return [...lines, ...(cut > 0 ? [`  [output truncated: ${cut} more characters not shown]`] : [])].join('\n')
}

/** A budget of output characters shared by a whole observation. */
const outputBudget = (): ((text: string | undefined) => ReadonlyArray<string>) => {
  let left: number = outputLimits.total
  return (text) => {
    if (text === undefined || text.trim() === '') return []
    if (left <= 0) return ['  [output not shown: the output limit of this observation is reached]']
    const block = outputBlock(text, left)
    left -= Math.min(text.length, outputLimits.perTest)
    return [block]
  }
}

const firstLine = (s: string): string =>
  s
    .split('\n')
    .find((l) => l.trim() !== '')
    ?.trim() ?? ''

/** The head and tail of a crash's stderr: the error is at the top, the call site at the bottom (each line capped). */
const excerpt = (stderr: string): string => {
  const lines = stderr
    .trim()
    .split('\n')
    .map((l) => (l.length > outputLimits.lineChars ? `${l.slice(0, outputLimits.lineChars)} [...]` : l))
  return lines.length <= 14 ? lines.join('\n') : [...lines.slice(0, 7), `[... ${lines.length - 14} lines ...]`, ...lines.slice(-7)].join('\n')
}

/** The test's own name in a qualified `file > name`. */
export const testName = (qualified: string): string => qualified.slice(qualified.indexOf(' > ') + 3)

/** The expected tests a `run_tests NAME` selects (all without a filter). */
export const selected = (expected: ReadonlyArray<string>, filter: string | undefined): ReadonlyArray<string> =>
  filter === undefined ? expected : expected.filter((n) => testName(n).includes(filter))

/** Why a file's tests count as failed, if they do: a kill, a memory limit or a rejected report, with the crash's stderr. */
const fileNote = ({ file, result: r, report }: Suite.FileRun): string | undefined => {
  if (r.timedOut) return `[${file}: killed after the wall-clock limit]`
  if (r.outputExceeded) return `[${file}: killed, output limit exceeded]`
  if (E.isRight(report)) return undefined
  if (Sandbox.memoryExceeded(r)) {
    const cause = r.stderr.split('\n').find((l) => Sandbox.memoryExceeded({ ...r, stderr: l })) ?? ''
    return `[${file}: out of memory: the code used more than the ${r.limits.memoryMb} MB it may use, heap and buffers together (${cause.trim()}); its tests count as failed]`
  }
  return `[${file}: exited with ${r.exitCode ?? r.signal}; ${Report.describe(report.left)}; its tests count as failed]\n${excerpt(r.stderr)}`
}

/**
 * The text of a test-run observation: one line per selected test with the console output it
 * printed under it (capped per test and in all, never part of the result), notes on the files'
 * runs, and the summary line last.
 */
export const suiteReport = (result: Suite.SuiteResult, expected: ReadonlyArray<string>, filter: string | undefined): string => {
  const chosen = selected(expected, filter)
  const byName = new Map(result.outcomes.map((o) => [Suite.qualified(o), o]))
  const budget = outputBudget()
  const lines = chosen.flatMap((name) => {
    const o = byName.get(name)
    return o === undefined ? [] : [o.passed ? `PASS ${name}` : `FAIL ${name}: ${firstLine(o.message)}`, ...budget(o.output)]
  })
  const notes: string[] = []
  for (const run of result.runs) {
    if (filter === undefined && run.output.trim() !== '') notes.push(`[${run.file}: console output outside any test]`, ...budget(run.output))
    if (E.isLeft(run.report) && run.result.stdout.trim() !== '')
      notes.push(`[${run.file}: the end of its console output]`, ...budget(run.result.stdout.slice(-outputLimits.perTest)))
    const note = fileNote(run)
    if (note !== undefined) notes.push(note)
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
