/**
 * Running an ablation: every cell x seed of a grid over a recipe (decoded beforehand by
 * `Recipe.ablationPlan`) one after another, each into its own run folder `<out>/<cell>-seed<N>/`,
 * with `ablation.json` (the results and one row per cell, mean ± std over seeds) and
 * `report.html` rewritten after each run, so a stopped ablation keeps what it finished.
 *
 * @since 0.1.0
 */
import { Ablation, RunDir, type Grid } from '@mtrl/experiment'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { join } from 'node:path'
import * as Pipeline from './Pipeline.js'
import type { PlanItem } from './Recipe.js'
import type { RunError } from './RunError.js'

/**
 * Where an ablation writes and what it records: `out` (its folder), `title` (of its report),
 * `recipe` (the recipe's path), `grid` and `seeds` (as given), and how each run computes and
 * reports (`Pipeline.Options` without its run folder).
 *
 * @category models
 */
export interface Options extends Omit<Pipeline.Options, 'run' | 'resume'> {
  readonly out: string
  readonly title: string
  readonly recipe: string
  readonly grid: Grid.Grid
  readonly seeds: ReadonlyArray<number>
}

/** `runs/<name>-ablate-<time>`: an ablation's folder when none is given. @category constructors */
export const defaultOut = (name: string, now: Date = new Date()): string => join('runs', `${name}-ablate-${now.toISOString().replace(/[-:.]/g, '').slice(0, 15)}`)

/** The run folder of one cell and seed inside `out` (the cell's name made safe for a path). @category constructors */
export const runPath = (out: string, item: Pick<PlanItem, 'cell' | 'seed'>): string => join(out, `${item.cell.replace(/[^a-zA-Z0-9=,._-]+/g, '_')}-seed${item.seed}`)

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
    const { out, title, recipe, grid, seeds, ...pipeline } = options
    const results: Array<Ablation.Result & { readonly run: string }> = []
    for (const [n, item] of plan.entries()) {
      pipeline.reporter.line(`\n=== cell ${n + 1}/${plan.length}: ${item.cell}, seed ${item.seed} ===`)
      const run = RunDir.create(item.cell, runPath(out, item))
      run.writeJson('recipe.json', item.recipe)
      const summary = await Pipeline.run({ ...pipeline, run })(item.recipe)()
      if (E.isLeft(summary)) return summary
      results.push({ cell: item.cell, seed: item.seed, final: summary.right.evals[summary.right.evals.length - 1]?.results ?? [], run: run.path })
      const dir = RunDir.open(out)
      dir.writeJson('ablation.json', { recipe, grid, seeds, results, rows: Ablation.rows(results) })
      const runs = results.map((r) => ({ cell: r.cell, seed: r.seed, metrics: RunDir.open(r.run).readMetrics() }))
      dir.writeText('report.html', Ablation.render(title, Ablation.rows(results), runs))
    }
    return E.right(Ablation.rows(results))
  }
