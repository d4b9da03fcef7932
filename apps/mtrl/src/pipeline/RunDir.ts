/**
 * A run's folder: `runs/<name>-<time>/` with the resolved recipe, `metrics.jsonl`,
 * `checkpoints/`, `eval.json`, `report.html`. Writes are atomic (temp file + rename) except
 * the metrics log, which is append-only and read line by line (a torn last line is skipped).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

export interface RunDir {
  readonly path: string
  readonly file: (name: string) => string
  readonly writeJson: (name: string, value: unknown) => void
  readonly writeText: (name: string, text: string) => void
  readonly readJson: (name: string) => unknown
  readonly appendMetrics: (record: Readonly<Record<string, unknown>>) => void
  readonly readMetrics: () => ReadonlyArray<Record<string, unknown>>
}

const stamp = (date: Date): string => date.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z').replace('T', '-')

/** Writes `text` to `path` atomically (same-folder temp file, then rename). */
export const writeAtomic = (path: string, text: string): void => {
  const tmp = `${path}.tmp-${process.pid}`
  writeFileSync(tmp, text)
  renameSync(tmp, path)
}

/** Opens an existing run folder. */
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
    readMetrics: () => {
      if (!existsSync(file('metrics.jsonl'))) return []
      return readFileSync(file('metrics.jsonl'), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>]
          } catch {
            return []
          }
        })
    }
  }
}

/** Creates `runs/<name>-<time>/` (or `<dir>` when given). */
export const create = (name: string, dir?: string, now: Date = new Date()): RunDir => {
  const path = dir ?? join('runs', `${name.replace(/[^a-zA-Z0-9._-]+/g, '_')}-${stamp(now)}`)
  mkdirSync(join(path, 'checkpoints'), { recursive: true })
  return open(path)
}
