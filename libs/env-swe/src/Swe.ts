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
import * as Action from './Action.js'
import { suiteReport, truncate } from './internal/render.js'
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
  readonly dispose: () => void
}

/**
 * Builds the shared resources (pool size: cores, unless given).
 *
 * @category constructors
 * @since 0.1.0
 */
export const resources = (settings: Settings.Settings, poolSize?: number): Resources => {
  const s = Settings.resolve(settings)
  const pool = Pool.make(poolSize)
  const p = Sandbox.probe()
  const guards = s.guards === 'require' ? Sandbox.allGuards : p.available
  const generator = Task.makeGenerator({
    pool,
    limits: { ...Settings.limits(s), timeoutMs: s.verifyTimeoutMs },
    guards: guards.filter((g) => p.available.includes(g)),
    ...(s.projects === undefined ? {} : { projects: s.projects }),
    ...(s.cacheDir === undefined ? {} : { cacheDir: s.cacheDir })
  })
  return { settings: s, pool, generator, guards, dispose: pool.dispose }
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

  const runSuite = (e: Episode, namePattern?: string) =>
    r.pool.run(Suite.run({ limits, guards: r.guards, ...(namePattern === undefined ? {} : { namePattern }) })(e.ws, e.task.project.tests))

  const record = (e: Episode, result: Suite.SuiteResult, filtered: boolean): void => {
    const ran = new Set(result.outcomes.map(Suite.qualified))
    const sc = Suite.score(e.task.expected, result.outcomes)
    for (const n of e.task.expected) if (!filtered || ran.has(n)) e.status.set(n, !sc.failing.includes(n))
  }

  const finish = (e: Episode, action: string, prefix: string, valid: boolean, truncated: boolean): TE.TaskEither<EnvError.EnvError, Env.StepResult> =>
    TE.tryCatch(
      async () => {
        Workspace.writeFiles(e.ws.repoDir, Object.fromEntries(e.task.project.tests.map((f) => [f, e.task.project.files[f]!])))
        const res = await runSuite(e)()
        if (E.isLeft(res)) throw new Error(Sandbox.errorMessage(res.left))
        record(e, res.right, false)
        e.done = true
        const k = known(e)
        const v = value(k.passed, k.total)
        const reward = s.dense ? v - e.paid : v
        e.paid = v
        const report = suiteReport(res.right, e.task.expected, false)
        const text = `${prefix}${prefix === '' ? '' : '\n\n'}${truncated ? 'Turn limit reached.' : 'Submitted.'} Final test run (test files restored):\n${report}`
        return { observation: cut(text), reward, done: true, won: k.passed === k.total, info: info(e, valid, { truncated, fraction: k.total === 0 ? 0 : k.passed / k.total }) }
      },
      (err) => EnvError.stepFailed(name, action, String(err))
    )

  const act = (e: Episode, a: Action.Action, action: string): TE.TaskEither<EnvError.EnvError, { text: string; reward: number }> => {
    const file = (x: E.Either<string, string>) => TE.right({ text: E.isLeft(x) ? `error: ${x.left}` : x.right, reward: 0 })
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
        return TE.right({ text: '', reward: 0 })
      case 'RunTests':
        return TE.tryCatch(
          async () => {
            const res = await runSuite(e, a.name)()
            if (E.isLeft(res)) throw new Error(Sandbox.errorMessage(res.left))
            record(e, res.right, a.name !== undefined)
            const k = known(e)
            const v = value(k.passed, k.total)
            const reward = s.dense ? v - e.paid : 0
            if (s.dense) e.paid = v
            return { text: suiteReport(res.right, e.task.expected, a.name !== undefined), reward }
          },
          (err) => EnvError.stepFailed(name, action, String(err))
        )
    }
  }

  const close = (): T.Task<void> => async () => {
    ep?.ws.dispose()
    ep = undefined
  }

  const reset = (seed: number): TE.TaskEither<EnvError.EnvError, Env.Observation> => async () => {
    await close()()
    const missing = Sandbox.probe().missing.filter((m) => m.guard !== 'timeout')
    if (s.guards === 'require' && missing.length > 0) return E.left(EnvError.resetFailed(name, seed, Sandbox.describeProbe(Sandbox.probe())))
    const task = await r.generator.generate(seed, s.tier)()
    if (E.isLeft(task)) return E.left(EnvError.resetFailed(name, seed, task.left))
    const t = task.right
    const ws = Workspace.make(t.files)
    const status = new Map(t.expected.map((n) => [n, !t.failing.includes(n)] as const))
    const e: Episode = { task: t, ws, turn: 0, done: false, status, paid: 0 }
    ep = e
    const goal = `Fix the bugs in the ${t.project.name} repository so that its whole test suite passes.`
    const text = [
      `Repository ${t.project.name}: ${t.project.description}.`,
      `Files:\n${Object.keys(t.files).sort().map((f) => `  ${f}`).join('\n')}`,
      `Run with node's test runner; ${t.expected.length} tests, of which these fail:\n${t.failing.map((f) => `  ${f}`).join('\n')}`,
      'Change the source, not the tests: test files are restored before scoring.',
      Action.usage
    ].join('\n\n')
    const sandbox = missing.length === 0 ? 'all guards on' : Sandbox.describeProbe(Sandbox.probe())
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
    return TE.chain((out: { text: string; reward: number }) =>
      atLimit
        ? TE.map((f: Env.StepResult) => ({ ...f, reward: f.reward + out.reward }))(finish(e, action, out.text, true, true))
        : TE.right({ observation: cut(out.text), reward: out.reward, done: false, won: false, info: info(e, true, { action: parsed.right._tag }) })
    )(act(e, parsed.right, action))
  }

  return { spec, reset, step, close, task: () => ep?.task }
}
