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
import * as Episode from './internal/episode.js'
import * as Measurement from './internal/measurement.js'
import { briefing, finalReport, goal, truncate, truncateKeepingLast } from './internal/render.js'
import * as Pool from './Pool.js'
import * as Sandbox from './Sandbox.js'
import * as Settings from './Settings.js'
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
    limits: { ...Settings.limits(s), timeoutMs: s.verifyTimeoutMs, memoryMb: s.verifyMemoryMb },
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

/** What one action did: its text, its reward, and whether it was valid. */
interface Outcome {
  readonly text: string
  readonly reward: number
  readonly valid: boolean
  /** A test run's text: its last line, the summary, survives any cut. */
  readonly report?: true
}

/** What the turns of one environment share: its name and settings, the resources, and how it measures, scores and cuts. */
interface Context {
  readonly name: string
  readonly settings: Settings.Resolved
  readonly resources: Resources
  readonly cut: (text: string) => string
  /** As `cut`, keeping the last line (a test run's summary). */
  readonly cutReport: (text: string) => string
  readonly measure: (e: Episode.Episode, action: string) => TE.TaskEither<EnvError.EnvError, Measurement.Measured>
  readonly info: (e: Episode.Episode, valid: boolean, extra?: Record<string, unknown>) => Env.StepInfo
}

/** Ends the episode: restores the test files, runs the full suite and pays what is left of its value. */
const finish = (
  c: Context,
  e: Episode.Episode,
  action: string,
  prefix: string,
  valid: boolean,
  truncated: boolean
): TE.TaskEither<EnvError.EnvError, Env.StepResult> =>
  pipe(
    TE.fromIO(() => Workspace.restore(e.ws.repoDir, Corpus.testSources(e.task.project))),
    TE.chain((unrestored) =>
      pipe(
        c.measure(e, action),
        TE.map((m): Env.StepResult => {
          const out = Measurement.record(e, m, undefined)
          e.done = true
          const k = Episode.known(e)
          const v = Episode.value(c.settings.reward)(k)
          const reward = c.settings.dense ? v - e.paid : v
          e.paid = v
          const text = finalReport({ prefix, truncated, unrestored, report: out.text })
          const extra = { truncated, fraction: k.total === 0 ? 0 : k.passed / k.total }
          return { observation: c.cutReport(text), reward, done: true, won: k.passed === k.total, info: c.info(e, valid && out.ran, extra) }
        })
      )
    )
  )

/** `run_tests [NAME]`: measures, updates the selected tests' status, and with `dense` pays the change of value. */
const runTests = (c: Context, e: Episode.Episode, filter: string | undefined, action: string): TE.TaskEither<EnvError.EnvError, Outcome> =>
  pipe(
    c.measure(e, action),
    TE.map((m) => {
      const out = Measurement.record(e, m, filter)
      const v = Episode.value(c.settings.reward)(Episode.known(e))
      const reward = c.settings.dense ? v - e.paid : 0
      if (c.settings.dense) e.paid = v
      return { text: out.text, reward, valid: out.ran, report: true }
    })
  )

const fileOutcome = (x: E.Either<string, string>): TE.TaskEither<EnvError.EnvError, Outcome> =>
  TE.right(E.isLeft(x) ? { text: `error: ${x.left}`, reward: 0, valid: false } : { text: x.right, reward: 0, valid: true })

/** Does one parsed action (`submit` only answers: the caller ends the episode). */
const act = (c: Context, e: Episode.Episode, a: Action.Action, action: string): TE.TaskEither<EnvError.EnvError, Outcome> => {
  switch (a._tag) {
    case 'Ls':
      return fileOutcome(Workspace.ls(e.ws.repoDir, a.dir))
    case 'Cat':
      return fileOutcome(Workspace.cat(e.ws.repoDir, a.file, a.range))
    case 'Grep':
      return fileOutcome(Workspace.grep(e.ws.repoDir, a.pattern, a.dir))
    case 'Edit':
      return fileOutcome(Workspace.edit(e.ws.repoDir, a.edit))
    case 'Submit':
      return TE.right({ text: '', reward: 0, valid: true })
    case 'RunTests':
      return runTests(c, e, a.name, action)
  }
}

/** One turn of a live episode: parses the action, does it, and at `submit` or the turn limit ends the episode. */
const turn = (c: Context, e: Episode.Episode, action: string): TE.TaskEither<EnvError.EnvError, Env.StepResult> => {
  e.turn++
  const atLimit = e.turn >= c.settings.maxTurns
  const parsed = Action.parse(action)
  if (E.isLeft(parsed)) {
    const text = `invalid action: ${parsed.left}\n\n${Action.usage}`
    return atLimit
      ? finish(c, e, action, text, false, true)
      : TE.right({ observation: c.cut(text), reward: 0, done: false, won: false, info: c.info(e, false) })
  }
  if (parsed.right._tag === 'Submit') return finish(c, e, action, '', true, false)
  return TE.chain((out: Outcome) =>
    atLimit
      ? TE.map((f: Env.StepResult) => ({ ...f, reward: f.reward + out.reward }))(finish(c, e, action, out.text, out.valid, true))
      : TE.right({
          observation: out.report === true ? c.cutReport(out.text) : c.cut(out.text),
          reward: out.reward,
          done: false,
          won: false,
          info: c.info(e, out.valid, { action: parsed.right._tag })
        })
  )(act(c, e, parsed.right, action))
}

/** Starts an episode on the task of `seed` (unless a required guard is missing): its workspace and first observation. */
const start =
  (c: Context, seed: number): TE.TaskEither<EnvError.EnvError, { readonly episode: Episode.Episode; readonly observation: Env.Observation }> =>
  async () => {
    const { probe } = c.resources
    const missing = missingGuards(probe)
    if ((c.settings.guards === 'require' || c.resources.settings.guards === 'require') && missing.length > 0) {
      return E.left(EnvError.resetFailed(c.name, seed, `${Sandbox.describeProbe(probe)} (guards: 'require'; 'unsafe-best-effort' runs without them)`))
    }
    const task = await c.resources.generator.generate(seed, c.settings.tier)()
    if (E.isLeft(task)) return E.left(EnvError.resetFailed(c.name, seed, task.left))
    const t = task.right
    let ws: Workspace.Workspace
    try {
      ws = Workspace.make(t.files)
    } catch (err) {
      return E.left(EnvError.resetFailed(c.name, seed, `workspace: ${String(err)}`))
    }
    const episode = Episode.begin(t, ws)
    const sandbox = missing.length === 0 ? 'all guards on' : `UNSAFE: ${Sandbox.describeProbe(probe)}`
    return E.right({
      episode,
      observation: { goal: goal(t), text: c.cut(briefing(t)), info: c.info(episode, true, { tier: t.tier, project: t.project.name, sandbox }) }
    })
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
  const measure = Measurement.measure({ env: name, pool: r.pool, limits: Settings.limits(s), guards: r.guards })
  const c: Context = {
    name,
    settings: s,
    resources: r,
    cut: truncate(s.outputChars),
    cutReport: truncateKeepingLast(s.outputChars),
    measure,
    info: Episode.info(s.reward)
  }
  let ep: Episode.Episode | undefined

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
      const started = await start(c, seed)()
      if (E.isLeft(started)) return started
      ep = started.right.episode
      return E.right(started.right.observation)
    }

  const step = (action: string): TE.TaskEither<EnvError.EnvError, Env.StepResult> => {
    const e = ep
    if (e === undefined) return TE.left(EnvError.notStarted(name))
    if (e.done) return TE.left(EnvError.episodeOver(name))
    return turn(c, e, action)
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
