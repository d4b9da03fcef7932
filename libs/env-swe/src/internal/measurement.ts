/**
 * Measuring an episode: one full run of the original tests in the sandbox, and what it tells of
 * the status of the tests it selects.
 */
import { EnvError } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as Corpus from '../Corpus.js'
import type * as Pool from '../Pool.js'
import * as Sandbox from '../Sandbox.js'
import * as Suite from '../Suite.js'
import type { Episode } from './episode.js'
import { notRunReport, selected, suiteReport } from './render.js'

/** A measurement of the suite: it ran (its reports may still be rejected), or it could not start. */
export type Measured = { readonly _tag: 'Ran'; readonly result: Suite.SuiteResult } | { readonly _tag: 'NotRun'; readonly reason: string }

/** Where and how an environment's test runs go: its name (for errors), the shared pool, the limits and guards. */
export interface Options {
  readonly env: string
  readonly pool: Pool.Pool
  readonly limits: Sandbox.Limits
  readonly guards: ReadonlyArray<Sandbox.Guard>
}

/** One full run of the original tests; a run that cannot start counts every test as failed. */
export const measure =
  (options: Options) =>
  (e: Episode, action: string): TE.TaskEither<EnvError.EnvError, Measured> =>
  async () => {
    let res: E.Either<Sandbox.SandboxError, Suite.SuiteResult>
    try {
      res = await options.pool.run(Suite.run({ limits: options.limits, guards: options.guards })(e.ws, Corpus.testSources(e.task.project)))()
    } catch (err) {
      return E.right({ _tag: 'NotRun', reason: String(err) })
    }
    if (E.isRight(res)) return E.right({ _tag: 'Ran', result: res.right })
    switch (res.left._tag) {
      case 'GuardUnavailable':
        // The machine or the configuration, never an action: reset refuses to start first.
        return E.left(EnvError.stepFailed(options.env, action, Sandbox.errorMessage(res.left)))
      case 'SpawnFailed':
        return E.right({ _tag: 'NotRun', reason: Sandbox.errorMessage(res.left) })
    }
  }

/** Updates the status of the selected tests from a measurement; returns its text and whether it ran. */
export const record = (e: Episode, m: Measured, filter: string | undefined): { readonly text: string; readonly ran: boolean } => {
  const outcomes = m._tag === 'Ran' ? m.result.outcomes : []
  const { failing } = Suite.score(e.task.expected, outcomes)
  for (const n of selected(e.task.expected, filter)) e.status.set(n, !failing.includes(n))
  return m._tag === 'Ran'
    ? { text: suiteReport(m.result, e.task.expected, filter), ran: true }
    : { text: notRunReport(m.reason, e.task.expected, filter), ran: false }
}
