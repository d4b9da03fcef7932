/**
 * Ablations: a grid of recipe variations (dotted paths such as `stages.1.algorithm` or
 * `stages.0.env.settings`), every cell run with every seed, summarised one row per cell.
 */
import * as E from 'fp-ts/lib/Either.js'
import * as Recipe from '../recipe/Recipe.js'
import type { Summary } from '@mtrl/eval'

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
    name: keys.length === 0 ? 'base' : keys.map((k) => labelOf(k, values[k])).join(',')
  }))
}

/**
 * A copy of `json` with the value at a dotted path replaced (arrays indexed by number). A key
 * of several paths joined by `|` sets them all to the same value (tied settings, e.g. the
 * training and evaluation environment of one cell).
 */
export const setPaths = (json: unknown, key: string, value: unknown): E.Either<string, unknown> => {
  if (key === '@') {
    // A variant: { "name"?: label, "<path>": value, ... } sets several paths to different values.
    const entries = Object.entries((value ?? {}) as Record<string, unknown>).filter(([k]) => k !== 'name')
    return entries.reduce((acc, [path, v]) => E.chain((j: unknown) => setPaths(j, path, v))(acc), E.right(json) as E.Either<string, unknown>)
  }
  return key.split('|').reduce((acc, path) => E.chain((j: unknown) => setPath(j, path, value))(acc), E.right(json) as E.Either<string, unknown>)
}

const labelOf = (key: string, value: unknown): string => {
  if (key === '@') {
    const name = (value as { name?: unknown } | null)?.name
    return typeof name === 'string' ? name : JSON.stringify(value)
  }
  return `${key.split('|')[0]!.split('.').pop()}=${typeof value === 'string' ? value : JSON.stringify(value)}`
}

/** A copy of `json` with the value at one dotted path replaced; an array index out of range is an error. */
export const setPath = (json: unknown, path: string, value: unknown): E.Either<string, unknown> => {
  const [head, ...rest] = path.split('.')
  if (head === undefined || head === '') return E.right(value)
  const inner = (child: unknown): E.Either<string, unknown> => (rest.length === 0 ? E.right(value) : setPath(child, rest.join('.'), value))
  if (Array.isArray(json)) {
    const index = Number(head)
    if (!Number.isInteger(index) || index < 0 || index >= json.length) return E.left(`${path}: no index ${head} in an array of ${json.length}`)
    return E.map((x: unknown) => json.map((y, i) => (i === index ? x : y)))(inner(json[index]))
  }
  const object = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {}
  return E.map((x: unknown) => ({ ...object, [head]: x }))(inner(object[head]))
}

/** Parses `--grid key=v1,v2`: each value as JSON when it parses, else as a string. */
export const parseGridFlag = (flag: string): E.Either<string, readonly [string, ReadonlyArray<unknown>]> => {
  const eq = flag.indexOf('=')
  if (eq <= 0) return E.left(`--grid ${flag}: expected key=v1,v2,...`)
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
  return E.right([flag.slice(0, eq), values])
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
export const rows = (results: ReadonlyArray<{ readonly cell: string; readonly seed: number; readonly final: ReadonlyArray<Summary.Summary> }>): ReadonlyArray<Row> => {
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

export interface PlanItem {
  readonly cell: string
  readonly seed: number
  readonly recipe: Recipe.Resolved
}

/** Every cell x seed as a decoded recipe; the first bad cell is an error naming it. */
export const plan = (json: unknown, grid: Grid, seeds: ReadonlyArray<number>): E.Either<string, ReadonlyArray<PlanItem>> => {
  const out: PlanItem[] = []
  for (const cell of cells(grid))
    for (const seed of seeds) {
      const variant = Object.entries(cell.values).reduce((acc, [key, value]) => E.chain((j: unknown) => setPaths(j, key, value))(acc), setPath(json, 'seed', seed))
      if (E.isLeft(variant)) return E.left(`cell ${cell.name}: ${variant.left}`)
      const { ablation: _a, ...withoutAblation } = variant.right as Record<string, unknown>
      const decoded = Recipe.decode(withoutAblation)
      if (E.isLeft(decoded)) return E.left(`cell ${cell.name}, seed ${seed}: ${decoded.left}`)
      out.push({ cell: cell.name, seed, recipe: decoded.right })
    }
  return E.right(out)
}
