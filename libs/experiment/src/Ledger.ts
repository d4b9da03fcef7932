/**
 * The test-seed ledger on disk: `results/test-looks.jsonl` (committed with the figures it backs),
 * one {@link TestLooks.Look} per line, appended and never rewritten; the hashes that identify a
 * recipe version and a checkpoint; and `record`, which a run's and `mtrl eval`'s test looks go
 * through (the rules are {@link TestLooks}').
 *
 * @since 0.2.0
 */
import type { Summary } from '@mtrl/eval'
import * as E from 'fp-ts/lib/Either.js'
import { PathReporter } from 'io-ts/lib/PathReporter.js'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import * as TestLooks from './TestLooks.js'

/**
 * Where the ledger is unless `MTRL_LEDGER` says otherwise: relative to the working folder, as
 * `runs/` is (the repository's root for `npm start`). Tests point `MTRL_LEDGER` elsewhere.
 *
 * @category constructors
 * @since 0.2.0
 */
export const defaultPath = 'results/test-looks.jsonl'

/**
 * The ledger's path: `MTRL_LEDGER` of `env`, else {@link defaultPath}.
 *
 * @category constructors
 * @since 0.2.0
 */
export const path = (env: Readonly<Record<string, string | undefined>> = process.env): string => env['MTRL_LEDGER'] ?? defaultPath

/**
 * The ledger's looks, oldest first (none when the file does not exist); a line that does not
 * decode is an error naming the file, the line and the field.
 *
 * @category destructors
 * @since 0.2.0
 */
export const read = (file: string): E.Either<string, ReadonlyArray<TestLooks.Look>> => {
  if (!existsSync(file)) return E.right([])
  const looks: TestLooks.Look[] = []
  for (const [i, line] of readFileSync(file, 'utf8').split('\n').entries()) {
    if (line.trim() === '') continue
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch (e) {
      return E.left(`${file}:${i + 1}: not JSON (${(e as Error).message})`)
    }
    const decoded = TestLooks.Look.decode(json)
    if (E.isLeft(decoded)) return E.left(`${file}:${i + 1}: ${PathReporter.report(decoded).join('; ')}`)
    looks.push(decoded.right)
  }
  return E.right(looks)
}

/**
 * Appends looks to the ledger, one line each (the folder is made if needed).
 *
 * @category utils
 * @since 0.2.0
 */
export const append = (file: string, looks: ReadonlyArray<TestLooks.Look>): void => {
  if (looks.length === 0) return
  mkdirSync(dirname(file), { recursive: true })
  appendFileSync(file, looks.map((l) => `${JSON.stringify(l)}\n`).join(''))
}

/** JSON text with object keys sorted. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  )

const sha = (parts: ReadonlyArray<string | Uint8Array>): string => {
  const h = createHash('sha256')
  for (const p of parts) h.update(p)
  return h.digest('hex').slice(0, 16)
}

/**
 * A recipe version: sha256 (16 hex) of the resolved recipe as JSON with sorted keys, without what
 * does not change what it computes or which run it is: its `seed` (the training seed is recorded
 * beside it), `name`, `description`, `ablation` and `scaleOut` (where episodes are played).
 *
 * @category constructors
 * @since 0.2.0
 */
export const recipeHash = (resolved: unknown): string => {
  const { seed: _s, name: _n, description: _d, ablation: _a, scaleOut: _o, ...rest } = JSON.parse(JSON.stringify(resolved)) as Record<string, unknown>
  return sha([canonical(rest)])
}

/** What plays of an mtrl checkpoint's config.json: the model, adapters and tokenizer kind (not the optimizer step or the caller's `extra`). */
const playingConfig = (text: string): string => {
  let json: Record<string, unknown>
  try {
    json = JSON.parse(text) as Record<string, unknown>
  } catch {
    return text
  }
  if (json === null || json['format'] !== 'mtrl-policy') return text
  const { format, version, model, lora, tokenizer } = json
  return canonical({ format, version, model, lora, tokenizer })
}

/**
 * A checkpoint: sha256 (16 hex) over the files of folder `dir` that decide how it plays (names
 * and bytes, in name order): all but the critic's and optimizer's states, and of an mtrl
 * `config.json` only the model, adapters and tokenizer kind. Two saves of the same weights hash
 * the same whatever their stage or step. Undefined when `dir` is not a folder.
 *
 * @category constructors
 * @since 0.2.0
 */
export const checkpointHash = (dir: string): string | undefined => {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return undefined
  const names = readdirSync(dir)
    .filter((n) => statSync(join(dir, n)).isFile() && !/^(optimizer.*|critic)\.safetensors$/.test(n))
    .sort()
  return sha(names.flatMap((n) => [`${n}\u0000`, n === 'config.json' ? playingConfig(readFileSync(join(dir, n), 'utf8')) : readFileSync(join(dir, n))]))
}

/**
 * A model a run builds from scratch and never saves before training: named by its recipe version
 * and seed, which decide its weights.
 *
 * @category constructors
 * @since 0.2.0
 */
export const scratchCheckpoint = (recipeVersion: string, seed: number): string => `scratch-${sha([recipeVersion, String(seed)])}`

/**
 * The commit checked out in `cwd` (`git rev-parse HEAD`), with `+` when tracked files differ
 * from it; `unknown` outside a git checkout.
 *
 * @category constructors
 * @since 0.2.0
 */
export const commit = (cwd: string = process.cwd()): string => {
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .some((l) => l.trim() !== '' && !l.endsWith('test-looks.jsonl'))
    return dirty ? `${head}+` : head
  } catch {
    return 'unknown'
  }
}

/**
 * What a look is, but for its environments' figures (see {@link TestLooks.Look}).
 *
 * @category models
 * @since 0.2.0
 */
export type Context = Omit<TestLooks.Look, 'date' | 'commit' | 'env' | 'firstSeed' | 'episodes' | 'successRate'>

/**
 * One look per summary that played test seeds (those of other splits are left out), dated now
 * and at the commit checked out in the working folder.
 *
 * @category constructors
 * @since 0.2.0
 */
export const looksOf =
  (context: Context, now: Date = new Date()) =>
  (summaries: ReadonlyArray<Summary.Summary>): ReadonlyArray<TestLooks.Look> => {
    const tested = summaries.filter((s) => s.seeds !== undefined && TestLooks.touchesTest(s.seeds.first, s.seeds.count))
    if (tested.length === 0) return []
    const at = commit()
    return tested.map((s) => ({
      date: now.toISOString(),
      commit: at,
      ...context,
      env: s.env,
      firstSeed: s.seeds!.first,
      episodes: s.seeds!.count,
      successRate: s.successRate
    }))
  }

/**
 * What recording looks did: the notes for people (a repeat, a mismatch), and the mismatches'
 * message when there were any.
 *
 * @category models
 * @since 0.2.0
 */
export interface Recorded {
  readonly notes: ReadonlyArray<string>
  readonly mismatch?: string
}

/**
 * Classifies finished looks against the ledger in `file` (`TestLooks.after`), appends the new
 * ones and the mismatches, and says what it did.
 *
 * @category utils
 * @since 0.2.0
 */
export const record =
  (file: string) =>
  (looks: ReadonlyArray<TestLooks.Look>): E.Either<string, Recorded> =>
    E.map((earlier: ReadonlyArray<TestLooks.Look>) => {
      const verdicts = looks.map(TestLooks.after(earlier))
      append(
        file,
        verdicts.flatMap((v) => (v._tag === 'Repeat' ? [] : [v.look]))
      )
      const notes = verdicts.map((v) =>
        v._tag === 'New'
          ? `test look recorded in ${file}: ${v.look.env} ${(100 * v.look.successRate).toFixed(1)}%`
          : v._tag === 'Repeat'
            ? `test look: ${v.earlier.env} reproduces the ledger's look of ${v.earlier.date.slice(0, 10)} (same checkpoint, same figure)`
            : `test look: ${v.message}`
      )
      const mismatches = verdicts.flatMap((v) => (v._tag === 'Mismatch' ? [v.message] : []))
      return mismatches.length === 0 ? { notes } : { notes, mismatch: mismatches.join('\n') }
    })(read(file))
