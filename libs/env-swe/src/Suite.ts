/**
 * Runs a project's tests (files for Node's built-in test runner) inside the sandbox and reads
 * back which tests passed.
 *
 * Each test file runs as `node --test-reporter=<ours> FILE`, which is exactly what `node --test`
 * does in each of its per-file subprocesses. `node --test` itself cannot be used under the
 * permission model: its parent spawns those subprocesses, which needs `--allow-child-process`,
 * and Node 20 does not pass the permission model on to children, so allowing it would let the
 * tested code spawn unrestricted processes.
 *
 * Results come from a reporter that prints one marked JSON line per top-level test. Tests
 * nested in `describe` count as their suite. Code under test shares the process with the
 * reporter and could forge lines; scoring counts only the expected test names, once each.
 *
 * @since 0.1.0
 */
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as Sandbox from './Sandbox.js'

/** The marker that starts every reporter line. @category constants @since 0.1.0 */
export const MARKER = '@@mtrl-swe@@'

/**
 * The reporter module (ESM source), written next to the repository as `reporter.mjs`.
 *
 * @category constants
 * @since 0.1.0
 */
export const reporterSource = `const MARKER = ${JSON.stringify(MARKER)}
export default async function* reporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    const d = event.data
    if (d.nesting !== 0 || d.skip || d.todo) continue
    const error = d.details && d.details.error
    const cause = error && error.cause
    const message = event.type === 'test:fail' ? String((cause && cause.message) || (error && error.message) || 'failed') : ''
    yield '\\n' + MARKER + JSON.stringify({ name: d.name, passed: event.type === 'test:pass', message: message.slice(0, 500) }) + '\\n'
  }
}
`

/**
 * One test's outcome.
 *
 * @category models
 * @since 0.1.0
 */
export interface TestOutcome {
  readonly file: string
  readonly name: string
  readonly passed: boolean
  readonly message: string
}

/**
 * A suite run: the outcomes reported, and per file how its process ended.
 *
 * @category models
 * @since 0.1.0
 */
export interface SuiteResult {
  readonly outcomes: ReadonlyArray<TestOutcome>
  readonly runs: ReadonlyArray<{ readonly file: string; readonly result: Sandbox.RunResult }>
}

/**
 * Parses reporter lines out of a run's stdout (anything else is the tests' own output).
 *
 * @category destructors
 * @since 0.1.0
 */
export const parseOutcomes = (file: string, stdout: string): ReadonlyArray<TestOutcome> =>
  stdout.split('\n').flatMap((line) => {
    const at = line.indexOf(MARKER)
    if (at === -1) return []
    try {
      const v = JSON.parse(line.slice(at + MARKER.length)) as { name?: unknown; passed?: unknown; message?: unknown }
      return typeof v.name === 'string' && typeof v.passed === 'boolean'
        ? [{ file, name: v.name, passed: v.passed, message: typeof v.message === 'string' ? v.message : '' }]
        : []
    } catch {
      return []
    }
  })

/**
 * Where a suite runs: the repository directory (the only writable path) and the reporter file.
 *
 * @category models
 * @since 0.1.0
 */
export interface Location {
  readonly repoDir: string
  readonly reporterPath: string
  /** Chowns the repository to the run's uid (see `Workspace.prepareFor`). */
  readonly prepare?: (uid: number | undefined) => void
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Runs test files one after another (each in its own sandboxed process). `namePattern`
 * (a plain substring) keeps only the tests whose name contains it.
 *
 * @category constructors
 * @since 0.1.0
 */
export const run =
  (options: { readonly limits: Sandbox.Limits; readonly guards?: ReadonlyArray<Sandbox.Guard>; readonly namePattern?: string }) =>
  (where: Location, files: ReadonlyArray<string>): TE.TaskEither<Sandbox.SandboxError, SuiteResult> =>
    pipe(
      files,
      TE.traverseSeqArray((file) =>
        pipe(
          Sandbox.run({
            writeDir: where.repoDir,
            readPaths: [where.reporterPath],
            script: `${where.repoDir}/${file}`,
            nodeArgs: [
              `--test-reporter=${where.reporterPath}`,
              ...(options.namePattern === undefined ? [] : [`--test-name-pattern=${escapeRegExp(options.namePattern)}`])
            ],
            limits: options.limits,
            ...(options.guards === undefined ? {} : { guards: options.guards }),
            ...(where.prepare === undefined ? {} : { prepare: where.prepare })
          }),
          TE.map((result) => ({ file, result }))
        )
      ),
      TE.map((runs) => ({ outcomes: runs.flatMap((r) => parseOutcomes(r.file, r.result.stdout)), runs }))
    )

/**
 * Scores outcomes against the expected (qualified, `file > name`) test names: each counts once, passed only
 * if some outcome of that name passed and none failed. Unknown names are ignored.
 *
 * @category destructors
 * @since 0.1.0
 */
export const score = (expected: ReadonlyArray<string>, outcomes: ReadonlyArray<TestOutcome>): { readonly passed: number; readonly total: number; readonly failing: ReadonlyArray<string> } => {
  const status = new Map<string, boolean>()
  const known = new Set(expected)
  for (const o of outcomes) {
    const name = qualified(o)
    if (known.has(name)) status.set(name, (status.get(name) ?? true) && o.passed)
  }
  const failing = expected.filter((name) => status.get(name) !== true)
  return { passed: expected.length - failing.length, total: expected.length, failing }
}

/**
 * The key an outcome is known by across files: `file > name`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const qualified = (o: Pick<TestOutcome, 'file' | 'name'>): string => `${o.file} > ${o.name}`
