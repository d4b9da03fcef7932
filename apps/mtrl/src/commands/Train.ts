/**
 * `mtrl train RECIPE` and `mtrl sft RECIPE`: run a recipe into a new run folder.
 */
import * as E from 'fp-ts/lib/Either.js'
import { backendFlag, parseFlags, UsageError, type Command } from '../Command.js'
import { readJson } from '../Input.js'
import * as Recipe from '../recipe/Recipe.js'
import * as RunDir from '../pipeline/RunDir.js'
import { formatEval, train as runRecipe, type Summary } from '../pipeline/Train.js'
import { startBackend } from '../Runtime.js'

/** Reads and decodes a recipe file; a bad recipe fails before any work, naming the field. */
export const loadRecipe = async (path: string | undefined): Promise<Recipe.Resolved> => {
  if (path === undefined) throw new UsageError('which recipe? (a JSON file, e.g. recipes/default.json)')
  const decoded = Recipe.decode(await readJson(path))
  if (E.isLeft(decoded)) throw new UsageError(`${path}: ${decoded.left}`)
  return decoded.right
}

const printSummary = (summary: Summary): void => {
  const lines = [`\n=== summary (${summary.seconds.toFixed(0)} s on ${summary.backend.name}) ===`]
  for (const phase of summary.evals) lines.push(`${phase.phase}:`, formatEval(phase.results))
  lines.push(`run folder: ${summary.run}`)
  process.stdout.write(`${lines.join('\n')}\n`)
}

const flags = { ...backendFlag, 'run-dir': { type: 'string' } } as const

export const runTrain = async (recipe: Recipe.Resolved, argv: { readonly backend?: string | undefined; readonly runDir?: string | undefined }): Promise<number> => {
  const backend = await startBackend(argv.backend)
  const run = RunDir.create(recipe.name, argv.runDir)
  run.writeJson('recipe.json', recipe)
  run.writeJson('backend.json', backend)
  process.stdout.write(`run ${recipe.name} -> ${run.path}\n`)
  const summary = await runRecipe(recipe, run, backend, { line: (text) => process.stdout.write(`${text}\n`) })
  printSummary(summary)
  return 0
}

export const train: Command = {
  name: 'train',
  summary: 'run a recipe: SFT stages, RL stages, evaluation',
  help: `mtrl train RECIPE.json [--backend B] [--run-dir DIR]

Runs every stage of the recipe in order (SFT on expert demonstrations, RL on the policy's own
episodes), evaluating on held-out seeds before training and after each stage, into
runs/<name>-<time>/ (or DIR): recipe.json (resolved), metrics.jsonl, checkpoints/, eval.json.

Examples:
  mtrl train recipes/default.json
  mtrl train recipes/paper/algorithms.json --backend tensorflow`,
  run: async (argv) => {
    const { values, positionals } = parseFlags(argv, flags, true)
    const recipe = await loadRecipe(positionals[0])
    return runTrain(recipe, { backend: values.backend, runDir: values['run-dir'] })
  }
}

export const sft: Command = {
  name: 'sft',
  summary: 'run only the SFT stages of a recipe',
  help: `mtrl sft RECIPE.json [--backend B] [--run-dir DIR]

Like mtrl train, keeping only the recipe's sft stages.

Example:
  mtrl sft recipes/default.json`,
  run: async (argv) => {
    const { values, positionals } = parseFlags(argv, flags, true)
    const recipe = await loadRecipe(positionals[0])
    const stages = recipe.stages.filter((s) => s.kind === 'sft')
    if (stages.length === 0) throw new UsageError(`${positionals[0]}: the recipe has no sft stage`)
    return runTrain({ ...recipe, stages }, { backend: values.backend, runDir: values['run-dir'] })
  }
}
