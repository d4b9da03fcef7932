/**
 * Runs a project's tests (files for Node's built-in test runner) inside the sandbox and reads
 * back which tests passed.
 *
 * Each test file runs in its own sandboxed process, `node --test-reporter=reporter.mjs
 * main.cjs`, under the trusted harness (see `Harness`): the test file's original source comes
 * from the host, the repository's code is confined to an SES Compartment, and the results come
 * back signed over fd 3 (see `Report`), never from stdout. `node --test` itself is not used:
 * its parent spawns one child per file, which needs `--allow-child-process`, and Node 20 does
 * not pass the permission model on to children.
 *
 * A file's results count only if its report is complete and well-formed (`Report.read`); a
 * rejected or crashed file counts all its tests as failed. Tests nested in `describe` count as
 * their suite.
 *
 * @since 0.1.0
 */
import { randomBytes } from 'node:crypto'
import * as path from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as Harness from './Harness.js'
import * as Esm from './internal/esm.js'
import * as Report from './Report.js'
import * as Sandbox from './Sandbox.js'

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
  /** What the code printed during the test (repository-relative paths), if anything; never part of the result. */
  readonly output?: string
}

/**
 * One test file's run: how its process ended, and its report (or why it was rejected).
 *
 * @category models
 * @since 0.1.0
 */
export interface FileRun {
  readonly file: string
  /** How the process ended; its stdout and stderr show repository-relative paths. */
  readonly result: Sandbox.RunResult
  readonly report: E.Either<Report.Rejection, ReadonlyArray<Report.Outcome>>
  /** What the code printed outside any test ('' when the report was rejected). */
  readonly output: string
}

/**
 * A suite run: the outcomes of the accepted reports, and every file's run.
 *
 * @category models
 * @since 0.1.0
 */
export interface SuiteResult {
  readonly outcomes: ReadonlyArray<TestOutcome>
  readonly runs: ReadonlyArray<FileRun>
}

/**
 * Where a suite runs: the repository directory (the only writable path) and the installed
 * harness (`Harness.install`, read-only for the sandbox).
 *
 * @category models
 * @since 0.1.0
 */
export interface Location {
  readonly repoDir: string
  readonly harnessDir: string
  /** Chowns the repository to the run's uid (see `Workspace.prepareFor`). */
  readonly prepare?: (uid: number | undefined) => void
}

const outcomesOf = (file: string, report: FileRun['report']): ReadonlyArray<TestOutcome> =>
  E.isLeft(report)
    ? []
    : report.right.map((o) => ({
        file,
        name: o.name,
        passed: o.status === 'pass',
        message: o.status === 'skip' ? 'skipped' : o.message,
        ...(o.output === undefined ? {} : { output: o.output })
      }))

/**
 * Text from a run with the host's paths taken out: the repository's files as the agent names
 * them (`src/m.js`), the harness as `<harness>`. The harness already shows the code and its stack
 * traces this way; this also covers what Node itself prints (an uncaught error's location).
 *
 * @category destructors
 * @since 0.2.0
 */
export const scrub =
  (where: Pick<Location, 'repoDir' | 'harnessDir'>) =>
  (text: string): string =>
    text.split(`${where.repoDir}/`).join('').split(where.harnessDir).join('<harness>').split(where.repoDir).join('.')

/** Node's flags for a test-file run: no buffer the code allocates holds old memory. */
const runFlags: ReadonlyArray<string> = ['--zero-fill-buffers']

/** A file's run, as read back: its report (rejected or not), and everything shown with repository-relative paths. */
const fileRun = (where: Location, config: Harness.Config, file: string, raw: Sandbox.RunResult): FileRun => {
  const clean = scrub(where)
  const result = { ...raw, stdout: clean(raw.stdout), stderr: clean(raw.stderr) }
  const read = Report.readRun(config)(raw.channel)
  if (E.isLeft(read)) return { file, result, report: read, output: '' }
  const outcomes = read.right.outcomes.map((o) => ({
    ...o,
    message: clean(o.message),
    ...(o.output === undefined ? {} : { output: clean(o.output) })
  }))
  return { file, result, report: E.right(outcomes), output: clean(read.right.output) }
}

/**
 * Runs test files one after another, each in its own sandboxed process. `tests` maps each test
 * file (relative to the repository) to its original source: the copy on disk is not used.
 *
 * @category constructors
 * @since 0.1.0
 */
export const run =
  (options: { readonly limits: Sandbox.Limits; readonly guards?: ReadonlyArray<Sandbox.Guard> }) =>
  (where: Location, tests: Readonly<Record<string, string>>): TE.TaskEither<Sandbox.SandboxError, SuiteResult> =>
    pipe(
      TE.fromEither(
        pipe(
          Harness.baseline(),
          E.mapLeft((reason): Sandbox.SandboxError => ({ _tag: 'SpawnFailed', reason }))
        )
      ),
      TE.chain((baseline) =>
        pipe(
          TE.fromTask(() => Esm.modulesOf(where.repoDir)),
          TE.chain((modules) => runFiles(options, where, tests, baseline, modules))
        )
      ),
      TE.map((runs) => ({ outcomes: runs.flatMap((r) => outcomesOf(r.file, r.report)), runs }))
    )

/** Each test file's run, one after another, over the harness's measured baseline. */
const runFiles = (
  options: { readonly limits: Sandbox.Limits; readonly guards?: ReadonlyArray<Sandbox.Guard> },
  where: Location,
  tests: Readonly<Record<string, string>>,
  baseline: Sandbox.Baseline,
  modules: Readonly<Record<string, Esm.Compiled>>
): TE.TaskEither<Sandbox.SandboxError, ReadonlyArray<FileRun>> =>
  pipe(
    Object.entries(tests),
    TE.traverseSeqArray(([file, source]) =>
      pipe(
        TE.fromTask(async () => (Esm.isModule(where.repoDir, file) ? await Esm.compile(source, file) : undefined)),
        TE.chain((testModule) => runFile(options, where, file, source, baseline, modules, testModule))
      )
    )
  )

/** One test file's run: its configuration, the sandboxed harness, and what it reported. */
const runFile = (
  options: { readonly limits: Sandbox.Limits; readonly guards?: ReadonlyArray<Sandbox.Guard> },
  where: Location,
  file: string,
  source: string,
  baseline: Sandbox.Baseline,
  modules: Readonly<Record<string, Esm.Compiled>>,
  testModule: Esm.Compiled | undefined
): TE.TaskEither<Sandbox.SandboxError, FileRun> => {
  const sesCache = Harness.ensureCache(where.harnessDir, Sandbox.heapMb(options.limits, baseline))
  const config: Harness.Config = {
    secret: randomBytes(32).toString('hex'),
    tripwire: `mtrl tripwire ${randomBytes(8).toString('hex')}`,
    repoDir: where.repoDir,
    testFile: path.join(where.repoDir, file),
    testSource: source,
    timeoutMs: options.limits.timeoutMs,
    ...(sesCache === undefined ? {} : { sesCache }),
    ...(Object.keys(modules).length === 0 ? {} : { modules }),
    ...(testModule === undefined ? {} : { testModule })
  }
  return pipe(
    Sandbox.run({
      writeDir: where.repoDir,
      readPaths: [where.harnessDir],
      script: path.join(where.harnessDir, Harness.MAIN),
      nodeArgs: [...runFlags, `--test-reporter=${path.join(where.harnessDir, Harness.REPORTER)}`],
      limits: options.limits,
      input: JSON.stringify(config),
      channel: true,
      baseline,
      ...(options.guards === undefined ? {} : { guards: options.guards }),
      ...(where.prepare === undefined ? {} : { prepare: where.prepare })
    }),
    TE.map((result) => fileRun(where, config, file, result))
  )
}

/**
 * Scores outcomes against the expected (qualified, `file > name`) test names: a test passes
 * only if it was reported exactly once, as passed. Unknown names are ignored.
 *
 * @category destructors
 * @since 0.1.0
 */
export const score = (
  expected: ReadonlyArray<string>,
  outcomes: ReadonlyArray<TestOutcome>
): { readonly passed: number; readonly total: number; readonly failing: ReadonlyArray<string> } => {
  const seen = new Map<string, number>()
  const passed = new Set<string>()
  for (const o of outcomes) {
    const name = qualified(o)
    seen.set(name, (seen.get(name) ?? 0) + 1)
    if (o.passed) passed.add(name)
  }
  const failing = expected.filter((name) => seen.get(name) !== 1 || !passed.has(name))
  return { passed: expected.length - failing.length, total: expected.length, failing }
}

/**
 * The key an outcome is known by across files: `file > name`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const qualified = (o: Pick<TestOutcome, 'file' | 'name'>): string => `${o.file} > ${o.name}`
