/**
 * Ablation grids over a JSON document (a recipe): dotted paths such as `stages.1.algorithm` or
 * `stages.0.env.settings` and the values each takes; every combination is a cell, every cell is
 * run with every seed. A key of paths joined by `|` ties them to one value; the key `@` takes
 * variants that set several paths at once (`{ "name"?: label, "<path>": value, ... }`).
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'

/**
 * Dotted paths (or `a|b` ties, or `@`) and the values each takes.
 *
 * @category models
 * @since 0.1.0
 */
export type Grid = Readonly<Record<string, ReadonlyArray<unknown>>>

/**
 * One combination of the grid's values, and its name (`algorithm=ppo,epochs=2`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Cell {
  readonly name: string
  readonly values: Readonly<Record<string, unknown>>
}

/**
 * One cell with one seed: the document with the cell's values and `seed` set.
 *
 * @category models
 * @since 0.1.0
 */
export interface Variant {
  readonly cell: string
  readonly seed: number
  readonly json: unknown
}

const labelOf = (key: string, value: unknown): string => {
  if (key === '@') {
    const name = (value as { name?: unknown } | null)?.name
    return typeof name === 'string' ? name : JSON.stringify(value)
  }
  return `${key.split('|')[0]!.split('.').pop()}=${typeof value === 'string' ? value : JSON.stringify(value)}`
}

/**
 * Every combination of the grid's values, in order (the first key varies slowest).
 *
 * @example
 * import { Grid } from '@mtrl/experiment'
 * Grid.cells({ 'stages.1.algorithm': ['ppo', 'grpo'] }).map((c) => c.name) // ['algorithm=ppo', 'algorithm=grpo']
 *
 * @category constructors
 * @since 0.1.0
 */
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
 * A copy of `json` with the value at one dotted path replaced (arrays indexed by number); an
 * array index out of range is an error.
 *
 * @category combinators
 * @since 0.1.0
 */
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

/**
 * A copy of `json` with a grid key set: every path of an `a|b` key to the same value (tied
 * settings, e.g. the training and evaluation environment of one cell), or each path of an `@`
 * variant to its own value.
 *
 * @category combinators
 * @since 0.1.0
 */
export const setPaths = (json: unknown, key: string, value: unknown): E.Either<string, unknown> => {
  if (key === '@') {
    const entries = Object.entries((value ?? {}) as Record<string, unknown>).filter(([k]) => k !== 'name')
    return entries.reduce((acc, [path, v]) => E.chain((j: unknown) => setPaths(j, path, v))(acc), E.right(json) as E.Either<string, unknown>)
  }
  return key.split('|').reduce((acc, path) => E.chain((j: unknown) => setPath(j, path, value))(acc), E.right(json) as E.Either<string, unknown>)
}

/**
 * Parses a `--grid key=v1,v2` flag: each value as JSON when it parses, else as a string.
 *
 * @category constructors
 * @since 0.1.0
 */
export const parseFlag = (flag: string): E.Either<string, readonly [string, ReadonlyArray<unknown>]> => {
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

/**
 * `grid` with `flags` (`key=v1,v2`) over it: a flag replaces the values of its key.
 *
 * @category combinators
 * @since 0.1.0
 */
export const withFlags = (grid: Grid, flags: ReadonlyArray<string>): E.Either<string, Grid> =>
  flags.reduce(
    (acc, flag) => E.chain((g: Grid) => E.map(([key, values]: readonly [string, ReadonlyArray<unknown>]) => ({ ...g, [key]: values }))(parseFlag(flag)))(acc),
    E.right({ ...grid }) as E.Either<string, Grid>
  )

/**
 * Every cell x seed of `json`, in order (cells slowest): the cell's values and `seed` set. A
 * path that does not fit is an error naming its cell.
 *
 * @category constructors
 * @since 0.1.0
 */
export const variants = (json: unknown, grid: Grid, seeds: ReadonlyArray<number>): E.Either<string, ReadonlyArray<Variant>> => {
  const out: Variant[] = []
  for (const cell of cells(grid))
    for (const seed of seeds) {
      const variant = Object.entries(cell.values).reduce(
        (acc, [key, value]) => E.chain((j: unknown) => setPaths(j, key, value))(acc),
        setPath(json, 'seed', seed)
      )
      if (E.isLeft(variant)) return E.left(`cell ${cell.name}: ${variant.left}`)
      out.push({ cell: cell.name, seed, json: variant.right })
    }
  return E.right(out)
}
