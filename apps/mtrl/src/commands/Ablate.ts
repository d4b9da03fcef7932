/**
 * `mtrl ablate RECIPE --grid key=v1,v2 ...`: run a grid of recipe variations, seeds repeated,
 * and print one row per cell (success rate mean ± std over seeds, per evaluation environment).
 */
import { ThreadInit } from '@mtrl/backend'
import { Input, Interrupt } from '@mtrl/cli'
import { Ablation, Ledger } from '@mtrl/experiment'
import { Ablate } from '@mtrl/recipe'
import * as E from 'fp-ts/lib/Either.js'
import { join } from 'node:path'
import { backendFlag, bool, fromRun, list, make, text, usage } from '../Command.js'
import { startBackend } from '../Runtime.js'

export const ablate = make({
  name: 'ablate',
  summary: 'run a grid of recipe variations with repeated seeds; one row per cell',
  help: `mtrl ablate RECIPE.json [--grid path=v1,v2 ...] [--seeds 1,2,3] [--backend B] [--out DIR] [--resume]

The grid comes from the recipe's "ablation" field, or from --grid flags (dotted recipe paths;
paths joined by | are tied to one value; values parsed as JSON when they parse). Every cell is decoded like a recipe before anything
runs. Results: DIR/<cell>-seed<N>/ run folders, DIR/ablation.json, DIR/report.html (the
table and each cell's learning curves, mean over seeds), and a table.
--resume continues an ablation in --out DIR (the same recipe, grid and seeds): finished runs
are kept, an unfinished one resumes from its last checkpoint (as mtrl resume), the rest run.
Without it, a DIR that already holds a cell's run is an error, so nothing is overwritten. Ctrl-C
once stops after the current iteration's checkpoint.

Examples:
  mtrl ablate recipes/paper/algorithms.json
  mtrl ablate recipes/default.json --grid stages.1.algorithm=ppo,grpo,rloo,reinforce++ --seeds 1,2
  mtrl ablate recipes/paper/rl-lift.json --out runs/rl-lift-ablation --resume`,
  flags: { ...backendFlag, grid: list, seeds: text, out: text, resume: bool },
  positionals: true,
  run:
    ({ values, positionals }) =>
    async () => {
      const path = positionals[0]
      if (path === undefined) return E.left(usage('which recipe?'))
      const json = await Input.readJson(path)()
      if (E.isLeft(json)) return json
      const planned = E.mapLeft(usage)(Ablate.plan({ path, grid: values.grid, seeds: values.seeds })(json.right))
      if (E.isLeft(planned)) return planned
      if (values.resume === true && values.out === undefined) return E.left(usage('--resume: which ablation? give its folder with --out DIR'))
      const { base, grid, seeds, items } = planned.right
      const backend = await startBackend(values.backend)()
      if (E.isLeft(backend)) return backend
      const out = values.out ?? Ablate.defaultOut(base.name)
      const reporter = { line: (text: string) => void process.stdout.write(`${text}\n`), note: (text: string) => void process.stderr.write(`${text}\n`) }
      const stop = Interrupt.onInterrupt()
      const options = {
        out,
        title: `${base.name}: ablation`,
        recipe: path,
        grid,
        seeds,
        backend: backend.right,
        reporter,
        stop,
        resume: values.resume === true,
        replicaInit: ThreadInit.init(backend.right.name),
        ledger: Ledger.path()
      }
      const rows = await Ablate.run(options)(items)().finally(() => stop.release())
      if (E.isLeft(rows)) return E.left(fromRun(rows.left))
      process.stdout.write(`\n${Ablation.table(rows.right)}\n\n${join(out, 'ablation.json')}\n${join(out, 'report.html')}\n`)
      return E.right(0)
    }
})
