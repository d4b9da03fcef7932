/**
 * Running an ablation: every cell x seed of a grid over a recipe (decoded beforehand by
 * `Recipe.ablationPlan`) one after another, each into its own run folder `<out>/<cell>-seed<N>/`,
 * with `ablation.json` (the results and one row per cell, mean ± std over seeds) and
 * `report.html` rewritten after each run, so a stopped ablation keeps what it finished; with
 * `resume` it continues in the same folder (finished runs kept, an unfinished one resumed from
 * its last checkpoint), so a grid of many hours can run over several sittings.
 *
 * @since 0.1.0
 */
import type { Summary } from '@mtrl/eval'
import { Ablation, Grid, Progress, RunDir } from '@mtrl/experiment'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import * as Pipeline from './Pipeline.js'
import { ablationPlan, decode, type PlanItem, type Resolved } from './Recipe.js'
import { failed, stopped, type RunError } from './RunError.js'

/**
 * Where an ablation writes and what it records: `out` (its folder), `title` (of its report),
 * `recipe` (the recipe's path), `grid` and `seeds` (as given), and how each run computes and
 * reports (`Pipeline.Options` without its run folder); `resume`: continue an ablation in `out`
 * (see {@link previous}).
 *
 * @category models
 */
export interface Options extends Omit<Pipeline.Options, 'run' | 'resume'> {
  readonly out: string
  readonly title: string
  readonly recipe: string
  readonly grid: Grid.Grid
  readonly seeds: ReadonlyArray<number>
  readonly resume?: boolean
}

/**
 * What a cell's run folder already holds: nothing (`New`), a run of the same recipe that
 * finished (`Finished`, with its last evaluation) or did not (`Unfinished`), or a run of
 * another recipe (`Other`).
 *
 * @category models
 */
export type Previous =
  | { readonly _tag: 'New' }
  | { readonly _tag: 'Finished'; readonly final: ReadonlyArray<Summary.Summary> }
  | { readonly _tag: 'Unfinished' }
  | { readonly _tag: 'Other' }

/** JSON text with object keys sorted, so that two decodings of one recipe compare equal. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v
  )

/** The fields of a recipe that decide what its run computes: all but its `description` and `ablation`. */
const computed = (recipe: unknown): string => {
  const { description: _d, ablation: _a, ...rest } = recipe as Record<string, unknown>
  return canonical(rest)
}

/**
 * What the run folder `path` holds of the planned `recipe`: its `recipe.json` compared as JSON,
 * key order, `description` and `ablation` aside (so `mtrl train RECIPE --seed N`'s run is the
 * run of a cell without overrides for seed N); finished: `progress.json` says so and `eval.json`
 * is written.
 *
 * @category destructors
 */
export const previous = (path: string, recipe: PlanItem['recipe']): Previous => {
  if (!existsSync(join(path, 'recipe.json'))) return { _tag: 'New' }
  const run = RunDir.open(path)
  if (computed(run.readJson('recipe.json')) !== computed(JSON.parse(JSON.stringify(recipe)))) return { _tag: 'Other' }
  if (!Progress.read(run).finished || !existsSync(run.file('eval.json'))) return { _tag: 'Unfinished' }
  const evals = (run.readJson('eval.json') as { readonly evals: ReadonlyArray<Progress.PhaseEval> }).evals
  return { _tag: 'Finished', final: evals[evals.length - 1]?.results ?? [] }
}

/** `runs/<name>-ablate-<time>`: an ablation's folder when none is given. @category constructors */
export const defaultOut = (name: string, now: Date = new Date()): string =>
  join('runs', `${name}-ablate-${now.toISOString().replace(/[-:.]/g, '').slice(0, 15)}`)

/** The run folder of one cell and seed inside `out` (the cell's name made safe for a path). @category constructors */
export const runPath = (out: string, item: Pick<PlanItem, 'cell' | 'seed'>): string =>
  join(out, `${item.cell.replace(/[^a-zA-Z0-9=,._-]+/g, '_')}-seed${item.seed}`)

/**
 * An ablation as planned: the recipe, its grid (its `ablation.grid` with the `key=v1,v2` flags
 * over it), its training seeds, and every cell x seed decoded.
 *
 * @category models
 * @since 0.2.0
 */
export interface Planned {
  readonly base: Resolved
  readonly grid: Grid.Grid
  readonly seeds: ReadonlyArray<number>
  readonly items: ReadonlyArray<PlanItem>
}

/**
 * The ablation of the recipe `json` (read from `path`, which its errors name): `grid` flags over
 * the recipe's grid, `seeds` (`1,2,3`) instead of its `ablation.seeds` (default: its own seed).
 * Every cell is decoded before anything runs, so a bad grid fails at once, naming the cell.
 *
 * @category constructors
 * @since 0.2.0
 */
export const plan =
  (options: { readonly path: string; readonly grid?: ReadonlyArray<string> | undefined; readonly seeds?: string | undefined }) =>
  (json: unknown): E.Either<string, Planned> => {
    const base = E.mapLeft((e: string) => `${options.path}: ${e}`)(decode(json))
    if (E.isLeft(base)) return base
    const { ablation, seed } = base.right
    const grid = Grid.withFlags(ablation?.grid ?? {}, options.grid ?? [])
    if (E.isLeft(grid)) return grid
    const seeds = options.seeds !== undefined ? options.seeds.split(',').map(Number) : (ablation?.seeds ?? [seed])
    if (seeds.some((s) => !Number.isInteger(s) || s < 0)) return E.left(`--seeds: expected non-negative integers, got "${options.seeds}"`)
    return E.map((items: ReadonlyArray<PlanItem>) => ({ base: base.right, grid: grid.right, seeds, items }))(ablationPlan(json, grid.right, seeds))
  }

/**
 * Runs every item of the plan in order; the rows of the finished ablation, or the first run's
 * error (the folders and files written so far stay).
 *
 * @category running
 */
export const run =
  (options: Options) =>
  (plan: ReadonlyArray<PlanItem>): TE.TaskEither<RunError, ReadonlyArray<Ablation.Row>> =>
  async () => {
    const { out, title, recipe, grid, seeds, resume = false, ...pipeline } = options
    const results: Array<Ablation.Result & { readonly run: string }> = []
    for (const [n, item] of plan.entries()) {
      pipeline.reporter.line(`\n=== cell ${n + 1}/${plan.length}: ${item.cell}, seed ${item.seed} ===`)
      const path = runPath(out, item)
      const before = previous(path, item.recipe)
      if (before._tag === 'Other')
        return E.left(failed(`${path} holds a run of another recipe than cell ${item.cell}, seed ${item.seed}: choose another --out`))
      if (before._tag !== 'New' && !resume)
        return E.left(
          failed(`${path} already holds a run of cell ${item.cell}, seed ${item.seed}: continue the ablation with --resume, or choose another --out`)
        )
      let final: ReadonlyArray<Summary.Summary>
      if (before._tag === 'Finished') {
        pipeline.reporter.line(`finished before, kept: ${path}`)
        final = before.final
      } else {
        const run = RunDir.create(item.cell, path)
        if (before._tag === 'New') run.writeJson('recipe.json', item.recipe)
        const summary = await Pipeline.run({ ...pipeline, run, resume: before._tag === 'Unfinished' })(item.recipe)()
        if (E.isLeft(summary))
          return summary.left._tag === 'Stopped'
            ? E.left(stopped(`${summary.left.message}; or continue the whole ablation with --resume and the same --out`))
            : summary
        final = summary.right.evals[summary.right.evals.length - 1]?.results ?? []
      }
      results.push({ cell: item.cell, seed: item.seed, final, run: RunDir.open(path).path })
      const dir = RunDir.open(out)
      dir.writeJson('ablation.json', { recipe, grid, seeds, results, rows: Ablation.rows(results) })
      const runs = results.map((r) => ({ cell: r.cell, seed: r.seed, metrics: RunDir.open(r.run).readMetrics() }))
      dir.writeText('report.html', Ablation.render(title, Ablation.rows(results), runs))
    }
    return E.right(Ablation.rows(results))
  }
