/**
 * Ablations: a grid of recipe variations (dotted paths such as `stages.1.algorithm` or
 * `stages.0.env.settings`), every cell run with every seed, summarised one row per cell.
 */
import type { EvalResult } from './Evaluate.js'

export type Grid = Readonly<Record<string, ReadonlyArray<unknown>>>

export interface Cell {
  readonly name: string
  readonly values: Readonly<Record<string, unknown>>
}

/** Every combination of the grid's values, in order (the first key varies slowest). */
export const cells = (grid: Grid): ReadonlyArray<Cell> => {
  const keys = Object.keys(grid)
  let out: Array<Record<string, unknown>> = [{}]
  for (const key of keys) out = out.flatMap((partial) => (grid[key] ?? []).map((v) => ({ ...partial, [key]: v })))
  return out.map((values) => ({
    values,
    name: keys.length === 0 ? 'base' : keys.map((k) => `${k.split('.').pop()}=${typeof values[k] === 'string' ? values[k] : JSON.stringify(values[k])}`).join(',')
  }))
}

/** A copy of `json` with the value at a dotted path replaced (arrays indexed by number). */
export const setPath = (json: unknown, path: string, value: unknown): unknown => {
  const [head, ...rest] = path.split('.')
  if (head === undefined || head === '') return value
  const inner = (child: unknown) => (rest.length === 0 ? value : setPath(child, rest.join('.'), value))
  if (Array.isArray(json)) {
    const index = Number(head)
    if (!Number.isInteger(index) || index < 0 || index >= json.length) throw new Error(`${path}: no index ${head} in an array of ${json.length}`)
    return json.map((x, i) => (i === index ? inner(x) : x))
  }
  const object = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {}
  return { ...object, [head]: inner(object[head]) }
}

/** Parses `--grid key=v1,v2`: each value as JSON when it parses, else as a string. */
export const parseGridFlag = (flag: string): readonly [string, ReadonlyArray<unknown>] => {
  const eq = flag.indexOf('=')
  if (eq <= 0) throw new Error(`--grid ${flag}: expected key=v1,v2,...`)
  const values = flag
    .slice(eq + 1)
    .split(',')
    .map((raw) => {
      try {
        return JSON.parse(raw) as unknown
      } catch {
        return raw
      }
    })
  return [flag.slice(0, eq), values]
}

export interface Row {
  readonly cell: string
  readonly env: string
  readonly seeds: number
  readonly mean: number
  readonly std: number
  readonly values: ReadonlyArray<number>
}

/** One row per cell and evaluation environment: success rate mean and sample std over seeds. */
export const rows = (results: ReadonlyArray<{ readonly cell: string; readonly seed: number; readonly final: ReadonlyArray<EvalResult> }>): ReadonlyArray<Row> => {
  const groups = new Map<string, number[]>()
  for (const r of results)
    for (const e of r.final) {
      const key = `${r.cell}\u0000${e.env}`
      groups.set(key, [...(groups.get(key) ?? []), e.successRate])
    }
  return [...groups.entries()].map(([key, values]) => {
    const [cell, env] = key.split('\u0000') as [string, string]
    const mean = values.reduce((a, b) => a + b, 0) / values.length
    const std = values.length < 2 ? 0 : Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1))
    return { cell, env, seeds: values.length, mean, std, values }
  })
}
