/**
 * `mtrl ablate RECIPE --grid key=v1,v2 ...`: run a grid of recipe variations, seeds repeated,
 * and print one row per cell (success rate mean ± std over seeds, per evaluation environment).
 */
import type { Summary } from '@mtrl/eval'
import * as E from 'fp-ts/lib/Either.js'
import { join } from 'node:path'
import { backendFlag, parseFlags, UsageError, type Command } from '../Command.js'
import { readJson } from '../Input.js'
import * as Ablation from '../pipeline/Ablation.js'
import * as RunDir from '../pipeline/RunDir.js'
import { train as runRecipe } from '../pipeline/Train.js'
import * as Recipe from '../recipe/Recipe.js'
import { startBackend } from '../Runtime.js'

export const ablate: Command = {
  name: 'ablate',
  summary: 'run a grid of recipe variations with repeated seeds; one row per cell',
  help: `mtrl ablate RECIPE.json [--grid path=v1,v2 ...] [--seeds 1,2,3] [--backend B] [--out DIR]

The grid comes from the recipe's "ablation" field, or from --grid flags (dotted recipe paths;
paths joined by | are tied to one value; values parsed as JSON when they parse). Every cell is decoded like a recipe before anything
runs. Results: DIR/<cell>-seed<N>/ run folders, DIR/ablation.json, and a table.

Examples:
  mtrl ablate recipes/paper/algorithms.json
  mtrl ablate recipes/default.json --grid stages.1.algorithm=ppo,grpo,rloo,reinforce++ --seeds 1,2`,
  run: async (argv) => {
    const { values, positionals } = parseFlags(argv, { ...backendFlag, grid: { type: 'string', multiple: true }, seeds: { type: 'string' }, out: { type: 'string' } }, true)
    const path = positionals[0]
    if (path === undefined) throw new UsageError('which recipe?')
    const json = await readJson(path)
    const base = Recipe.decode(json)
    if (E.isLeft(base)) throw new UsageError(`${path}: ${base.left}`)
    let grid: Record<string, ReadonlyArray<unknown>> = { ...(base.right.ablation?.grid ?? {}) }
    for (const flag of values.grid ?? []) {
      try {
        const [key, vs] = Ablation.parseGridFlag(flag)
        grid = { ...grid, [key]: vs }
      } catch (e) {
        throw new UsageError((e as Error).message)
      }
    }
    const seeds = values.seeds !== undefined ? values.seeds.split(',').map(Number) : (base.right.ablation?.seeds ?? [base.right.seed])
    if (seeds.some((s) => !Number.isInteger(s) || s < 0)) throw new UsageError(`--seeds: expected non-negative integers, got "${values.seeds}"`)
    // Decode every cell before running any, so a bad grid fails at once.
    const planned = Ablation.plan(json, grid, seeds)
    if (E.isLeft(planned)) throw new UsageError(planned.left)
    const plan = planned.right
    const backend = await startBackend(values.backend)
    const out = values.out ?? join('runs', `${base.right.name}-ablate-${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}`)
    const results: Array<{ cell: string; seed: number; final: ReadonlyArray<Summary.Summary>; run: string }> = []
    for (const [n, item] of plan.entries()) {
      process.stdout.write(`\n=== cell ${n + 1}/${plan.length}: ${item.cell}, seed ${item.seed} ===\n`)
      const run = RunDir.create(item.cell, join(out, `${item.cell.replace(/[^a-zA-Z0-9=,._-]+/g, '_')}-seed${item.seed}`))
      run.writeJson('recipe.json', item.recipe)
      const summary = await runRecipe(item.recipe, run, backend, { line: (text) => process.stdout.write(`${text}\n`) })
      results.push({ cell: item.cell, seed: item.seed, final: summary.evals[summary.evals.length - 1]?.results ?? [], run: run.path })
      RunDir.open(out).writeJson('ablation.json', { recipe: path, grid, seeds, results, rows: Ablation.rows(results) })
    }
    const table = Ablation.rows(results)
    process.stdout.write(`\n${'cell'.padEnd(44)} ${'env'.padEnd(30)} success (mean ± std over seeds)\n`)
    for (const r of table) process.stdout.write(`${r.cell.padEnd(44)} ${r.env.padEnd(30)} ${(100 * r.mean).toFixed(1)}% ± ${(100 * r.std).toFixed(1)} (n=${r.seeds})\n`)
    process.stdout.write(`\n${join(out, 'ablation.json')}\n`)
    return 0
  }
}
