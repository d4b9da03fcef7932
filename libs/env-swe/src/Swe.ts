/**
 * The SWE environment (SWE-Gym style, see Pan et al. 2024 and section 5.4 of the mtrl reference):
 * the agent repairs a buggy JavaScript repository by reading files, editing and running its
 * tests; the episode ends at `submit` or the turn limit, when the full suite (with the original
 * test files restored) is run and scored.
 *
 * Rewards (`Settings.reward`, `Settings.dense`): the final step earns the share of tests
 * passing (`fraction`) or 1 only if all pass (`binary`); other steps earn 0. With `dense`, each
 * `run_tests` earns the change of that value as last measured (starting from 0), and the final
 * step the rest, so the return equals the sparse return. `info.score` is the last measured
 * value, `info.maxScore` is 1, `info.extra` has `passed`, `total` and more.
 *
 * @since 0.1.0
 */
import { EnvError, type Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type * as T from 'fp-ts/lib/Task.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as Action from './Action.js'
import * as Corpus from './Corpus.js'
import * as Expert from './Expert.js'
import { notRunReport, selected, suiteReport, truncate } from './internal/render.js'
import * as Pool from './Pool.js'
import * as Sandbox from './Sandbox.js'
import * as Settings from './Settings.js'
import * as Suite from './Suite.js'
import * as Task from './Task.js'
import * as Workspace from './Workspace.js'

/**
 * An SWE environment: an `Env` that also shows its current task (for experts and tests).
 *
 * @category models
 * @since 0.1.0
 */
export interface SweEnv extends Env.Env {
  readonly task: () => Task.Task | undefined
}

/**
 * Shared resources: one test-run pool and one task generator (with its verdict cache) for
 * every environment made from it. `dispose` stops the pool.
 *
 * @category models
 * @since 0.1.0
 */
export interface Resources {
  readonly settings: Settings.Resolved
  readonly pool: Pool.Pool
  readonly generator: Task.Generator
  readonly guards: ReadonlyArray<Sandbox.Guard>
  /** What the machine supports (`Sandbox.probe()` unless given). */
  readonly probe: Sandbox.Probe
  readonly dispose: () => void
}

/**
 * Builds the shared resources (pool size: cores, unless given; `probe` is for tests).
 *
 * @category constructors
 * @since 0.1.0
 */
export const resources = (settings: Settings.Settings, poolSize?: number, probe: Sandbox.Probe = Sandbox.probe()): Resources => {
  const s = Settings.resolve(settings)
  const pool = Pool.make(poolSize)
  // Fail closed: with `require`, every guard is asked for and a missing one fails every run.
  const guards = s.guards === 'require' ? Sandbox.allGuards : probe.available
  const generator = Task.makeGenerator({
    pool,
    limits: { ...Settings.limits(s), timeoutMs: s.verifyTimeoutMs },
    guards,
    ...(s.projects === undefined ? {} : { projects: s.projects }),
    ...(s.cacheDir === undefined ? {} : { cacheDir: s.cacheDir })
  })
  return { settings: s, pool, generator, guards, probe, dispose: pool.dispose }
}

/** The guards a machine lacks (the in-sandbox `timeout` is backed by the host's kill, so it does not count). */
const missingGuards = (p: Sandbox.Probe): ReadonlyArray<{ readonly guard: Sandbox.Guard; readonly reason: string }> =>
  p.missing.filter((m) => m.guard !== 'timeout')

/**
 * One line for logs at start-up: the guards the resources' runs use, and loudly what is missing
 * and whether the env refuses to run (`guards: 'require'`) or runs without them
 * (`guards: 'unsafe-best-effort'`).
 *
 * @category destructors
 * @since 0.1.0
 */
export const describeSandbox = (r: Resources): string => {
  const missing = missingGuards(r.probe)
  if (missing.length === 0) return `swe sandbox: all ${r.guards.length} guards on (${r.guards.join(', ')})`
  const list = missing.map((m) => `${m.guard} (${m.reason})`).join('; ')
  return r.settings.guards === 'require'
    ? `swe sandbox: MISSING GUARDS, episodes will refuse to start: ${list}. Run as root on Linux with util-linux, or set guards: 'unsafe-best-effort' to run without them.`
    : `swe sandbox: UNSAFE, guards: 'unsafe-best-effort' runs WITHOUT ${list}; on: ${r.guards.join(', ')}`
}

/** A measurement of the suite: it ran (its reports may still be rejected), or it could not start. */
type Measured = { readonly _tag: 'Ran'; readonly result: Suite.SuiteResult } | { readonly _tag: 'NotRun'; readonly reason: string }

/** What one action did: its text, its reward, and whether it was valid. */
interface Outcome {
  readonly text: string
  readonly reward: number
  readonly valid: boolean
}

interface Episode {
  readonly task: Task.Task
  readonly ws: Workspace.Workspace
  turn: number
  done: boolean
  /** Last known status of every expected test. */
  readonly status: Map<string, boolean>
  /** The value the dense reward has paid out so far. */
  paid: number
}

/**
 * A fresh environment using shared resources (or its own, when none are given). With shared
 * resources, task generation (projects, cache, verification limits, guards) follows the
 * resources' settings; the episode settings (tier, turns, rewards, limits of the agent's test
 * runs, output size) follow `settings`.
 *
 * @example
 * import { Swe } from '@mtrl/env-swe'
 * const env = Swe.make({ tier: 'easy' })
 * // await env.reset(4)(); await env.step('run_tests')(); ...; await env.close()()
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (settings: Settings.Settings, shared?: Resources): SweEnv => {
  const r = shared ?? resources(settings)
  const s = shared === undefined ? r.settings : Settings.resolve(settings)
  const spec = Settings.spec(s)
  const name = spec.name
  const limits = Settings.limits(s)
  const cut = truncate(s.outputChars)
  let ep: Episode | undefined

  const value = (passed: number, total: number): number => (s.reward === 'binary' ? (passed === total ? 1 : 0) : total === 0 ? 0 : passed / total)
  const known = (e: Episode): { passed: number; total: number } => ({ passed: [...e.status.values()].filter(Boolean).length, total: e.status.size })
  const info = (e: Episode, valid: boolean, extra: Record<string, unknown> = {}) => {
    const k = known(e)
    return { valid, score: value(k.passed, k.total), maxScore: 1, extra: { ...k, turn: e.turn, task: e.task.id, ...extra } }
  }

  /** One full run of the original tests; a run that cannot start counts every test as failed. */
  const measure =
    (e: Episode, action: string): TE.TaskEither<EnvError.EnvError, Measured> =>
    async () => {
      let res: E.Either<Sandbox.SandboxError, Suite.SuiteResult>
      try {
        res = await r.pool.run(Suite.run({ limits, guards: r.guards })(e.ws, Corpus.testSources(e.task.project)))()
      } catch (err) {
        return E.right({ _tag: 'NotRun', reason: String(err) })
      }
      if (E.isRight(res)) return E.right({ _tag: 'Ran', result: res.right })
      switch (res.left._tag) {
        case 'GuardUnavailable':
          // The machine or the configuration, never an action: reset refuses to start first.
          return E.left(EnvError.stepFailed(name, action, Sandbox.errorMessage(res.left)))
        case 'SpawnFailed':
          return E.right({ _tag: 'NotRun', reason: Sandbox.errorMessage(res.left) })
      }
    }

  /** Updates the status of the selected tests from a measurement; returns its text and whether it ran. */
  const record = (e: Episode, m: Measured, filter: string | undefined): { readonly text: string; readonly ran: boolean } => {
    const outcomes = m._tag === 'Ran' ? m.result.outcomes : []
    const { failing } = Suite.score(e.task.expected, outcomes)
    for (const n of selected(e.task.expected, filter)) e.status.set(n, !failing.includes(n))
    return m._tag === 'Ran'
      ? { text: suiteReport(m.result, e.task.expected, filter), ran: true }
      : { text: notRunReport(m.reason, e.task.expected, filter), ran: false }
  }

  const finish = (e: Episode, action: string, prefix: string, valid: boolean, truncated: boolean): TE.TaskEither<EnvError.EnvError, Env.StepResult> =>
    pipe(
      TE.fromIO(() => Workspace.restore(e.ws.repoDir, Corpus.testSources(e.task.project))),
      TE.chain((unrestored) =>
        pipe(
          measure(e, action),
          TE.map((m): Env.StepResult => {
            const out = record(e, m, undefined)
            e.done = true
            const k = known(e)
            const v = value(k.passed, k.total)
            const reward = s.dense ? v - e.paid : v
            e.paid = v
            const restored =
              unrestored.length === 0 ? 'test files restored' : `test files restored, except: ${unrestored.join('; ')}; the original sources ran all the same`
            const text = `${prefix}${prefix === '' ? '' : '\n\n'}${truncated ? 'Turn limit reached.' : 'Submitted.'} Final test run (${restored}):\n${out.text}`
            const extra = { truncated, fraction: k.total === 0 ? 0 : k.passed / k.total }
            return { observation: cut(text), reward, done: true, won: k.passed === k.total, info: info(e, valid && out.ran, extra) }
          })
        )
      )
    )

  const act = (e: Episode, a: Action.Action, action: string): TE.TaskEither<EnvError.EnvError, Outcome> => {
    const file = (x: E.Either<string, string>): TE.TaskEither<EnvError.EnvError, Outcome> =>
      TE.right(E.isLeft(x) ? { text: `error: ${x.left}`, reward: 0, valid: false } : { text: x.right, reward: 0, valid: true })
    switch (a._tag) {
      case 'Ls':
        return file(Workspace.ls(e.ws.repoDir, a.dir))
      case 'Cat':
        return file(Workspace.cat(e.ws.repoDir, a.file, a.range))
      case 'Grep':
        return file(Workspace.grep(e.ws.repoDir, a.pattern, a.dir))
      case 'Edit':
        return file(Workspace.edit(e.ws.repoDir, a.edit))
      case 'Submit':
        return TE.right({ text: '', reward: 0, valid: true })
      case 'RunTests':
        return pipe(
          measure(e, action),
          TE.map((m) => {
            const out = record(e, m, a.name)
            const k = known(e)
            const v = value(k.passed, k.total)
            const reward = s.dense ? v - e.paid : 0
            if (s.dense) e.paid = v
            return { text: out.text, reward, valid: out.ran }
          })
        )
    }
  }

  const close = (): T.Task<void> => async () => {
    try {
      ep?.ws.dispose()
    } catch {
      // Whatever the run left behind, the exit hook and the next sweep remove it.
    }
    ep = undefined
  }

  const reset =
    (seed: number): TE.TaskEither<EnvError.EnvError, Env.Observation> =>
    async () => {
      await close()()
      const missing = missingGuards(r.probe)
      if ((s.guards === 'require' || r.settings.guards === 'require') && missing.length > 0) {
        return E.left(EnvError.resetFailed(name, seed, `${Sandbox.describeProbe(r.probe)} (guards: 'require'; 'unsafe-best-effort' runs without them)`))
      }
      const task = await r.generator.generate(seed, s.tier)()
      if (E.isLeft(task)) return E.left(EnvError.resetFailed(name, seed, task.left))
      const t = task.right
      let ws: Workspace.Workspace
      try {
        ws = Workspace.make(t.files)
      } catch (err) {
        return E.left(EnvError.resetFailed(name, seed, `workspace: ${String(err)}`))
      }
      const status = new Map(t.expected.map((n) => [n, !t.failing.includes(n)] as const))
      const e: Episode = { task: t, ws, turn: 0, done: false, status, paid: 0 }
      ep = e
      const goal = `Fix the bugs in the ${t.project.name} repository so that its whole test suite passes.`
      const text = [
        `Repository ${t.project.name}: ${t.project.description}.`,
        `Files:\n${Object.keys(t.files)
          .sort()
          .map((f) => `  ${f}`)
          .join('\n')}`,
        `Run with node's test runner; ${t.expected.length} tests, of which these fail:\n${t.failing.map((f) => `  ${f}`).join('\n')}`,
        'Change the source, not the tests: the tests always run as originally written, and the test files are restored before scoring.',
        Action.usage
      ].join('\n\n')
      const sandbox = missing.length === 0 ? 'all guards on' : `UNSAFE: ${Sandbox.describeProbe(r.probe)}`
      return E.right({ goal, text: cut(text), info: info(e, true, { tier: t.tier, project: t.project.name, sandbox }) })
    }

  const step = (action: string): TE.TaskEither<EnvError.EnvError, Env.StepResult> => {
    const e = ep
    if (e === undefined) return TE.left(EnvError.notStarted(name))
    if (e.done) return TE.left(EnvError.episodeOver(name))
    e.turn++
    const atLimit = e.turn >= s.maxTurns
    const parsed = Action.parse(action)
    if (E.isLeft(parsed)) {
      const text = `invalid action: ${parsed.left}\n\n${Action.usage}`
      return atLimit ? finish(e, action, text, false, true) : TE.right({ observation: cut(text), reward: 0, done: false, won: false, info: info(e, false) })
    }
    if (parsed.right._tag === 'Submit') return finish(e, action, '', true, false)
    return TE.chain((out: Outcome) =>
      atLimit
        ? TE.map((f: Env.StepResult) => ({ ...f, reward: f.reward + out.reward }))(finish(e, action, out.text, out.valid, true))
        : TE.right({ observation: cut(out.text), reward: out.reward, done: false, won: false, info: info(e, out.valid, { action: parsed.right._tag }) })
    )(act(e, parsed.right, action))
  }

  return { spec, reset, step, close, task: () => ep?.task }
}

/**
 * The task family as pipelines use it (`Env.EnvSource`): envs that share one set of
 * {@link resources} (made here unless given; freed by `dispose`), and the expert
 * (`Expert.plan` of the current task).
 *
 * @example
 * import { Swe } from '@mtrl/env-swe'
 * const source = Swe.source({ tier: 'easy' })
 * const env = source.make()
 * // ... reset, step ...; then: await env.close()(); source.dispose()
 *
 * @category constructors
 * @since 0.1.0
 */
export const source = (settings: Settings.Settings, shared: Resources = resources(settings)): Env.EnvSource => {
  const envSpec = Settings.spec(shared.settings)
  return {
    name: envSpec.name,
    maxTurns: envSpec.maxTurns,
    make: () => make(settings, shared),
    expertPlan: (env) => {
      const task = (env as SweEnv).task()
      return task === undefined ? [] : Expert.plan(task)
    },
    dispose: () => shared.dispose()
  }
}
