/**
 * The settings of the SWE environment: an io-ts codec (for recipes and CLI flags), defaults, and
 * the `EnvSpec` they imply. Every field is optional; `resolve` fills in defaults.
 *
 * @since 0.1.0
 */
import { Decode, type Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as t from 'io-ts'
import * as Action from './Action.js'
import * as Sandbox from './Sandbox.js'
import { Tier } from './Task.js'

const Positive = t.refinement(t.number, (n) => Number.isFinite(n) && n > 0, 'a positive number')

/**
 * - `tier`: `easy` | `medium` | `hard` (default `easy`);
 * - `maxTurns`: turn limit; at the limit the suite is scored as if submitted (default 30);
 * - `reward`: `fraction` (share of tests passing) or `binary` (1 only if all pass);
 * - `dense`: also reward each `run_tests` with the change in that value (see `Swe`);
 * - `outputChars`: observations longer than this are truncated with a marker (default 4000);
 * - `timeoutMs`, `memoryMb`, `maxProcesses`, `maxFileMb`, `maxOutputBytes`: sandbox limits of
 *   each test run (see `Sandbox.Limits`);
 * - `verifyTimeoutMs`: wall-clock limit of runs that verify generated tasks (default 4000);
 * - `verifyMemoryMb`: memory of those runs (default 64, see `Sandbox.Limits`): small, so that a
 *   mutant whose code runs away with memory dies in a fraction of a second, the same way on an
 *   idle or a loaded machine, and the tasks made do not depend on the load;
 * - `guards`: `require` (the default) refuses to start an episode unless every guard is
 *   available; `unsafe-best-effort` runs with whichever guards this machine has, says which are
 *   missing in `info.extra.sandbox` and `Swe.describeSandbox`, and is unsafe for untrusted
 *   policies (fail closed unless asked otherwise, loudly);
 * - `projects`: restrict the corpus to these projects (the ES-module projects of `Corpus.modules`
 *   are taken only when named here);
 * - `cacheDir`: keep task-verification verdicts on disk here.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Settings = t.partial({
  tier: Tier,
  maxTurns: Positive,
  reward: t.keyof({ fraction: null, binary: null }),
  dense: t.boolean,
  outputChars: Positive,
  timeoutMs: Positive,
  memoryMb: Positive,
  maxProcesses: Positive,
  maxFileMb: Positive,
  maxOutputBytes: Positive,
  verifyTimeoutMs: Positive,
  verifyMemoryMb: Positive,
  guards: t.keyof({ require: null, 'unsafe-best-effort': null }),
  projects: t.readonlyArray(t.string),
  cacheDir: t.string
})
/** @category models @since 0.1.0 */
export type Settings = t.TypeOf<typeof Settings>

/**
 * Settings with every default filled in (`projects` and `cacheDir` stay optional).
 *
 * @category models
 * @since 0.1.0
 */
export type Resolved = Required<Omit<Settings, 'projects' | 'cacheDir'>> & Pick<Settings, 'projects' | 'cacheDir'>

/** @category constants @since 0.1.0 */
export const defaults: Resolved = {
  tier: 'easy',
  maxTurns: 30,
  reward: 'fraction',
  dense: false,
  outputChars: 4000,
  timeoutMs: Sandbox.defaultLimits.timeoutMs,
  memoryMb: Sandbox.defaultLimits.memoryMb,
  maxProcesses: Sandbox.defaultLimits.maxProcesses,
  maxFileMb: Sandbox.defaultLimits.maxFileMb,
  maxOutputBytes: Sandbox.defaultLimits.maxOutputBytes,
  verifyTimeoutMs: 4000,
  verifyMemoryMb: 64,
  guards: 'require'
}

/** @category constructors @since 0.1.0 */
export const resolve = (settings: Settings): Resolved => ({ ...defaults, ...settings })

/**
 * Decodes settings from JSON (unknown fields are errors, named with their path).
 *
 * @category constructors
 * @since 0.1.0
 */
export const decode = (input: unknown): E.Either<string, Resolved> =>
  pipe(Decode.decodeStrict('swe settings', Settings)(input), E.bimap(Decode.formatError, resolve))

/** The sandbox limits of agent-triggered test runs. @category destructors @since 0.1.0 */
export const limits = (s: Resolved): Sandbox.Limits => ({
  timeoutMs: s.timeoutMs,
  memoryMb: s.memoryMb,
  maxProcesses: s.maxProcesses,
  maxFileMb: s.maxFileMb,
  maxOutputBytes: s.maxOutputBytes
})

/**
 * The spec: name `swe/<tier>`, the turn limit, and the action format.
 *
 * @category destructors
 * @since 0.1.0
 */
export const spec = (s: Resolved): Env.EnvSpec => ({ name: `swe/${s.tier}`, maxTurns: s.maxTurns, actionFormat: Action.usage })
