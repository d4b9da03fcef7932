/**
 * A run's folder: `runs/<name>-<time>/` with the resolved recipe, `metrics.jsonl`,
 * `checkpoints/`, `eval.json`, `report.html`. Writes are atomic (temp file + rename) except
 * the metrics log, which is append-only and read line by line (a torn last line is skipped).
 *
 * @since 0.1.0
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

/**
 * An open run folder: paths inside it, atomic JSON and text writes, the metrics log.
 *
 * @category models
 * @since 0.1.0
 */
export interface RunDir {
  readonly path: string
  readonly file: (name: string) => string
  readonly writeJson: (name: string, value: unknown) => void
  readonly writeText: (name: string, text: string) => void
  readonly readJson: (name: string) => unknown
  readonly appendMetrics: (record: Readonly<Record<string, unknown>>) => void
  readonly readMetrics: () => ReadonlyArray<Record<string, unknown>>
}

const stamp = (date: Date): string =>
  date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
    .replace('T', '-')

/**
 * Writes `text` to `path` atomically (same-folder temp file, then rename).
 *
 * @category utils
 * @since 0.1.0
 */
export const writeAtomic = (path: string, text: string): void => {
  const tmp = `${path}.tmp-${process.pid}`
  writeFileSync(tmp, text)
  renameSync(tmp, path)
}

/** The records of a metrics log; lines that do not parse (a torn last line) are skipped. */
const parseLines = (text: string): ReadonlyArray<Record<string, unknown>> =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>]
      } catch {
        return []
      }
    })

/**
 * Opens an existing run folder.
 *
 * @example
 * import { RunDir } from '@mtrl/experiment'
 * const run = RunDir.open('runs/default-20261130-101500Z')
 * run.readMetrics().filter((m) => m['kind'] === 'rl')
 *
 * @category constructors
 * @since 0.1.0
 */
export const open = (path: string): RunDir => {
  const root = resolve(path)
  const file = (name: string) => join(root, name)
  return {
    path: root,
    file,
    writeJson: (name, value) => writeAtomic(file(name), `${JSON.stringify(value, null, 2)}\n`),
    writeText: (name, text) => writeAtomic(file(name), text),
    readJson: (name) => JSON.parse(readFileSync(file(name), 'utf8')) as unknown,
    appendMetrics: (record) => appendFileSync(file('metrics.jsonl'), `${JSON.stringify(record)}\n`),
    readMetrics: () => (existsSync(file('metrics.jsonl')) ? parseLines(readFileSync(file('metrics.jsonl'), 'utf8')) : [])
  }
}

/**
 * Creates `runs/<name>-<time>/` (or `<dir>` when given) with its `checkpoints/` folder.
 *
 * @category constructors
 * @since 0.1.0
 */
export const create = (name: string, dir?: string, now: Date = new Date()): RunDir => {
  const path = dir ?? join('runs', `${name.replace(/[^a-zA-Z0-9._-]+/g, '_')}-${stamp(now)}`)
  mkdirSync(join(path, 'checkpoints'), { recursive: true })
  return open(path)
}
