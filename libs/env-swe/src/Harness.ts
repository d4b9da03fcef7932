/**
 * The trusted side of a test run inside the sandbox: the files `harness/main.cjs` (the entry
 * point) and `harness/reporter.mjs` (the node:test reporter) of this package, plus the SES
 * bundle (`ses`, pinned). `install` copies them next to an episode's repository, read-only for
 * the sandbox; `Suite.run` starts `main.cjs` with a `Config` on stdin and reads the results
 * from fd 3 (see `Report`).
 *
 * What the harness does, in order, before any code of the repository exists in the process:
 * reads its configuration and closes stdin; locks the realm down (SES `lockdown()`), hardens
 * `node:test` and `node:assert`; loads the repository's code into an SES Compartment whose only
 * powers are a console, `Date`, `Math`, typed arrays, `Intl`, `URL`, `structuredClone`, tamed
 * timers and a `require` of the repository's own files and of a safe subset of Node's built-ins
 * (`assert`, `util`, `path`, `events`, `buffer`, `url`, `timers`); runs the test file from its
 * original source (given in the configuration, never read from disk), keeping what the code
 * prints per test; registers a tripwire test that must fail. The threat model is in
 * docs/decisions/0008-swe-reward-threat-model.md, the code it runs in
 * docs/decisions/0015-swe-sandbox-for-real-code.md.
 *
 * @since 0.1.0
 */
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { tmpdir } from 'node:os'
import { fileURLToPath } from 'node:url'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import * as BaselineProbe from './internal/baseline.js'
import type * as Sandbox from './Sandbox.js'

/**
 * What the host sends the harness on stdin (JSON), one per test-file run.
 *
 * - `secret`: the key of the HMAC that signs every result line (fresh per run);
 * - `tripwire`: the name of the test that must fail (fresh per run);
 * - `repoDir`: the repository, the only directory the compartment's `require` reaches;
 * - `testFile`, `testSource`: where the test file lives, and its original text.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Config = t.intersection([
  t.type({ secret: t.string, tripwire: t.string, repoDir: t.string, testFile: t.string, testSource: t.string }),
  /**
   * `sesCache`: the file, in the harness directory, of V8's code cache for the SES bundle (see
   * `ensureCache`); `timeoutMs`: the run's time limit, which bounds the code's timers;
   * `modules`: the repository's ES modules compiled (by repository path), and `testModule` the
   * test file's when it is one (issue 55; see `src/internal/esm.ts`).
   */
  t.partial({ sesCache: t.string, timeoutMs: t.number, modules: t.UnknownRecord, testModule: t.unknown })
])
/** @category models @since 0.1.0 */
export type Config = t.TypeOf<typeof Config>

/** The harness's entry point, as installed. @category constants @since 0.1.0 */
export const MAIN = 'main.cjs'
/** The reporter, as installed. @category constants @since 0.1.0 */
export const REPORTER = 'reporter.mjs'
/** The SES bundle, as installed. @category constants @since 0.1.0 */
export const SES = 'ses.js'
/** The harness's other files (the compartment, its globals and built-ins, the output), as installed. @category constants @since 0.2.0 */
export const PARTS: ReadonlyArray<string> = ['repository.cjs', 'globals.cjs', 'builtins.cjs', 'source.cjs', 'output.cjs', 'events.js', 'modules.cjs']

const here = path.dirname(fileURLToPath(import.meta.url))

/**
 * Where the installable files come from: the package's `harness/` directory (a sibling of both
 * `src/` and `dist/`) and the `ses` package's UMD bundle.
 *
 * @category constants
 * @since 0.1.0
 */
export const sources = (): Readonly<Record<string, string>> => ({
  [MAIN]: path.join(here, '..', 'harness', MAIN),
  [REPORTER]: path.join(here, '..', 'harness', REPORTER),
  [SES]: path.join(path.dirname(createRequire(import.meta.url).resolve('ses')), 'ses.umd.min.js'),
  ...Object.fromEntries(PARTS.map((name) => [name, path.join(here, '..', 'harness', name)]))
})

/**
 * Copies the harness into `dir` (created, mode 0755; files 0644): readable by the sandbox's
 * uid, writable by nobody but the host. Throws if a source is missing (a broken install).
 *
 * @category constructors
 * @since 0.1.0
 */
export const install = (dir: string): void => {
  fs.mkdirSync(dir, { recursive: true, mode: 0o755 })
  for (const [name, from] of Object.entries(sources())) {
    fs.copyFileSync(from, path.join(dir, name))
    fs.chmodSync(path.join(dir, name), 0o644)
  }
}

/** Compiles the SES bundle, runs it (so lazily compiled functions are in too) and prints V8's code cache. */
const PRODUCE =
  "const fs = require('fs'), vm = require('vm'); const f = process.argv[1]; const s = new vm.Script(fs.readFileSync(f, 'utf8'), { filename: f }); s.runInThisContext(); process.stdout.write(s.createCachedData())"

const caches = new Map<number, Buffer | undefined>()

/**
 * V8's code cache of the SES bundle for runs with this heap limit, made once per process by a
 * Node with the same binary and V8 flags (V8 rejects a cache made under other flags, and the
 * harness then compiles from source: slower, never wrong). `undefined` if that Node failed.
 * Saves the harness about a third of its start-up.
 *
 * @category constructors
 * @since 0.1.0
 */
export const sesCache = (heapMb: number): Buffer | undefined => {
  if (!caches.has(heapMb)) {
    const r = spawnSync(process.execPath, [`--max-old-space-size=${heapMb}`, '--no-warnings', '-e', PRODUCE, sources()[SES]!], {
      maxBuffer: 64 << 20,
      timeout: 30_000,
      env: { PATH: '/usr/bin:/bin' }
    })
    caches.set(heapMb, r.status === 0 && r.stdout.length > 0 ? r.stdout : undefined)
  }
  return caches.get(heapMb)
}

/**
 * Puts the code cache for `heapMb` into an installed harness directory (once) and returns its
 * file name, for `Config.sesCache`; `undefined` when there is none.
 *
 * @category constructors
 * @since 0.1.0
 */
export const ensureCache = (dir: string, heapMb: number): string | undefined => {
  const name = `ses-${heapMb}.cache`
  const file = path.join(dir, name)
  if (fs.existsSync(file)) return name
  const cache = sesCache(heapMb)
  if (cache === undefined) return undefined
  fs.writeFileSync(file, cache, { mode: 0o644 })
  return name
}

/** The probe's test file: one test that measures the run as its code would start (see `baseline`). */
const PROBE_TEST = `'use strict'\nconst test = require('node:test')\ntest('baseline', () => ${BaselineProbe.REPORT})\n`

let measured: E.Either<string, Sandbox.Baseline> | undefined

/**
 * What a test-file run holds by itself when the code under test starts (once per process): the
 * harness run for real, with a run's flags and environment, in a scratch directory, on a test
 * file that reads its own `/proc/self/status` (SES loaded, the realm locked down, `node:test` and
 * the reporter up). `Suite.run` adds `memoryMb` to this, so the code gets what it is told.
 *
 * @category constructors
 * @since 0.3.0
 */
export const baseline = (): E.Either<string, Sandbox.Baseline> => {
  if (measured !== undefined) return measured
  const dir = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-baseline-'))
  try {
    const [harnessDir, repoDir] = [path.join(dir, 'harness'), path.join(dir, 'repo')]
    install(harnessDir)
    fs.mkdirSync(repoDir)
    const heapMb = 64
    const sesCache = ensureCache(harnessDir, heapMb)
    const config: Config = {
      secret: 'baseline',
      tripwire: 'mtrl tripwire baseline',
      repoDir,
      testFile: path.join(repoDir, 'baseline.test.js'),
      testSource: PROBE_TEST,
      ...(sesCache === undefined ? {} : { sesCache })
    }
    const args = [
      '--experimental-permission',
      `--allow-fs-write=${repoDir}`,
      `--allow-fs-read=${repoDir}`,
      `--allow-fs-read=${harnessDir}`,
      '--allow-fs-read=/proc',
      '--no-warnings',
      `--max-old-space-size=${heapMb}`,
      '--zero-fill-buffers',
      `--test-reporter=${path.join(harnessDir, REPORTER)}`,
      path.join(harnessDir, MAIN)
    ]
    measured = BaselineProbe.measure(args, JSON.stringify(config))
    return measured
  } catch (e) {
    return E.left(`the memory baseline probe failed (${String(e)})`)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
