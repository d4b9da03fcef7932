/**
 * `mtrl train RECIPE` and `mtrl sft RECIPE`: run a recipe into a new run folder.
 */
import * as E from 'fp-ts/lib/Either.js'
import { backendFlag, intFlag, parseFlags, UsageError, type Command } from '../Command.js'
import { readJson } from '../Input.js'
import * as ProgressBar from '../ProgressBar.js'
import * as Recipe from '../recipe/Recipe.js'
import * as RunDir from '../pipeline/RunDir.js'
import { formatEval, Stopped, train as runRecipe, type StopSignal, type Summary } from '../pipeline/Train.js'
import { startBackend } from '../Runtime.js'
import * as ScaleOut from '../ScaleOut.js'

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

const flags = { ...backendFlag, 'run-dir': { type: 'string' }, redis: { type: 'string' }, workers: { type: 'string' }, queue: { type: 'string' } } as const

/** The recipe's scaleOut with `--redis` and `--workers` over it. */
const withScaleOut = (
  recipe: Recipe.Resolved,
  values: { readonly redis?: string | undefined; readonly workers?: string | undefined; readonly queue?: string | undefined }
): Recipe.Resolved => {
  const workers = values.workers === undefined ? undefined : intFlag('workers', values.workers, 0)
  if (values.redis === undefined && workers === undefined && values.queue === undefined) return recipe
  return {
    ...recipe,
    scaleOut: {
      ...recipe.scaleOut,
      ...(values.redis === undefined ? {} : { redis: values.redis }),
      ...(workers === undefined ? {} : { workers }),
      ...(values.queue === undefined ? {} : { queue: values.queue })
    }
  }
}

/** Ctrl-C once: finish the current iteration, write a checkpoint, stop. Twice: stop now. */
const stopOnInterrupt = (): StopSignal & { readonly release: () => void } => {
  let requested = false
  const onSignal = (): void => {
    if (requested) process.exit(130)
    requested = true
    process.stderr.write('\nstopping after the current iteration (Ctrl-C again to stop now)\n')
  }
  process.on('SIGINT', onSignal)
  return { requested: () => requested, release: () => process.off('SIGINT', onSignal) }
}

/** Runs (or resumes) a recipe in a run folder, printing progress and the summary. */
export const runIn = async (recipe: Recipe.Resolved, run: RunDir.RunDir, backendFlag: string | undefined, resume: boolean): Promise<number> => {
  const backend = await startBackend(backendFlag)
  run.writeJson('backend.json', backend)
  process.stdout.write(`${resume ? 'resuming' : 'run'} ${recipe.name} -> ${run.path}\n`)
  const line = (text: string): void => void process.stdout.write(`${text}\n`)
  const scaleOut = recipe.stages.some((s) => s.kind === 'rl') ? await ScaleOut.start(recipe.scaleOut ?? {}, backend.name, line) : undefined
  const stop = stopOnInterrupt()
  try {
    const summary = await runRecipe(recipe, run, backend, { line, bar: ProgressBar.make(), interactive: process.stdout.isTTY === true }, resume, stop, scaleOut?.runner)
    printSummary(summary)
    return 0
  } catch (e) {
    if (e instanceof Stopped) {
      process.stdout.write(`${e.message}\n`)
      return 130
    }
    throw e
  } finally {
    stop.release()
    await scaleOut?.stop()
  }
}

export const runTrain = async (recipe: Recipe.Resolved, argv: { readonly backend?: string | undefined; readonly runDir?: string | undefined }): Promise<number> => {
  const run = RunDir.create(recipe.name, argv.runDir)
  run.writeJson('recipe.json', recipe)
  return runIn(recipe, run, argv.backend, false)
}

export const train: Command = {
  name: 'train',
  summary: 'run a recipe: SFT stages, RL stages, evaluation',
  help: `mtrl train RECIPE.json [--backend B] [--run-dir DIR] [--workers N] [--redis URL] [--queue NAME]

Runs every stage of the recipe in order (SFT on expert demonstrations, RL on the policy's own
episodes), evaluating on held-out seeds before training and after each stage, into
runs/<name>-<time>/ (or DIR): recipe.json (resolved), metrics.jsonl, checkpoints/, eval.json.

Scale-out (recipe field "scaleOut": { "redis", "workers", "groupsPerJob", "queue" }; flags override):
  --workers N   start N local worker processes (and a local redis-server unless --redis is given)
                that play the RL stages' episodes, so every core plays
  --redis URL   send RL episodes as jobs to the queue at URL, played by mtrl worker processes
                on any machine; the same trajectories as a local run for the same seed
  --queue NAME  the queue's name (default mtrl-rollout; workers: mtrl worker --queue NAME)

Examples:
  mtrl train recipes/default.json
  mtrl train recipes/default.json --workers 2
  mtrl train recipes/default.json --redis redis://10.0.0.1:6379
  mtrl train recipes/paper/algorithms.json --backend tensorflow`,
  run: async (argv) => {
    const { values, positionals } = parseFlags(argv, flags, true)
    const recipe = withScaleOut(await loadRecipe(positionals[0]), values)
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

export const resume: Command = {
  name: 'resume',
  summary: 'continue a stopped or killed run from its last checkpoint',
  help: `mtrl resume RUN_DIR [--backend B]

Reads RUN_DIR/recipe.json and continues: finished stages are skipped, an RL stage continues
after its last checkpoint (every checkpointEvery iterations) with the same random streams, an
SFT stage after its last mid-stage checkpoint (every stage's checkpointEvery steps) with the
same data order. Metrics of work after the checkpoint are dropped and redone.

Example:
  mtrl resume runs/default-20261130-101500Z`,
  run: async (argv) => {
    const { values, positionals } = parseFlags(argv, backendFlag, true)
    const dir = positionals[0]
    if (dir === undefined) throw new UsageError('which run folder?')
    const run = RunDir.open(dir)
    const decoded = Recipe.decode(await readJson(run.file('recipe.json')))
    if (E.isLeft(decoded)) throw new UsageError(`${run.file('recipe.json')}: ${decoded.left}`)
    return runIn(decoded.right, run, values.backend, true)
  }
}
