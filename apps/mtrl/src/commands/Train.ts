/**
 * `mtrl train RECIPE`, `mtrl sft RECIPE` and `mtrl resume RUN_DIR`: run a recipe into a run folder.
 */
import { ThreadInit } from '@mtrl/backend'
import { Input, Interrupt, ProgressBar } from '@mtrl/cli'
import { Ledger, RunDir } from '@mtrl/experiment'
import { Launch, Pipeline, Recipe } from '@mtrl/recipe'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { backendFlag, fromRun, int, make, required, text, usage, type CliError, type Parsed, type Values } from '../Command.js'
import { bin, startBackend } from '../Runtime.js'

/** Reads and decodes a recipe file; a bad recipe fails before any work, naming the field. */
export const loadRecipe = (path: string | undefined): TE.TaskEither<CliError, Recipe.Resolved> =>
  pipe(
    TE.fromEither(required(path, 'which recipe? (a JSON file, e.g. recipes/default.json)')),
    TE.chain((p) =>
      pipe(
        Input.readJson(p),
        TE.chainEitherK((json) => E.mapLeft((e: string) => usage(`${p}: ${e}`))(Recipe.decode(json)))
      )
    )
  )

const sftFlags = { ...backendFlag, 'run-dir': text, seed: int() }
const trainFlags = { ...sftFlags, redis: text, workers: int(), queue: text }

/** Runs (or resumes) a recipe in a run folder (`Launch` of @mtrl/recipe), printing progress and the summary. */
export const runIn =
  (recipe: Recipe.Resolved, run: RunDir.RunDir, backendName: string | undefined, resume: boolean): TE.TaskEither<CliError, number> =>
  async () => {
    const backend = await startBackend(backendName)()
    if (E.isLeft(backend)) return backend
    const line = (text: string): void => void process.stdout.write(`${text}\n`)
    const note = (text: string) => void process.stderr.write(`${text}\n`)
    const reporter = { line, note, bar: ProgressBar.make(), interactive: process.stdout.isTTY === true }
    const stop = Interrupt.onInterrupt()
    const options = {
      run,
      backend: backend.right,
      reporter,
      resume,
      stop,
      replicaInit: ThreadInit.init(backend.right.name),
      ledger: Ledger.path(),
      workerBin: bin
    }
    const summary = await Launch.run(options)(recipe)().finally(() => stop.release())
    return E.bimap(fromRun, (s: Pipeline.Summary) => (line(Pipeline.formatSummary(s)), 0))(summary)
  }

export const runTrain = (
  recipe: Recipe.Resolved,
  argv: { readonly backend?: string | undefined; readonly runDir?: string | undefined }
): TE.TaskEither<CliError, number> => {
  const run = RunDir.create(recipe.name, argv.runDir)
  run.writeJson('recipe.json', recipe)
  return runIn(recipe, run, argv.backend, false)
}

/**
 * `mtrl <command> RECIPE [flags]`: the recipe (its training seed `--seed`'s when given), adjusted
 * by `adjust` (which may refuse it), run into a new run folder.
 */
const recipeCommand =
  <F extends typeof sftFlags>(adjust: (recipe: Recipe.Resolved, values: Values<F>, path: string | undefined) => E.Either<CliError, Recipe.Resolved>) =>
  ({ values, positionals }: Parsed<F>): TE.TaskEither<CliError, number> =>
    pipe(
      loadRecipe(positionals[0]),
      TE.map((recipe) => (values.seed === undefined ? recipe : { ...recipe, seed: values.seed })),
      TE.chainEitherK((recipe) => adjust(recipe, values, positionals[0])),
      TE.chain((recipe) => runTrain(recipe, { backend: values.backend, runDir: values['run-dir'] }))
    )

export const train = make({
  name: 'train',
  summary: 'run a recipe: pretrain, SFT and RL stages, evaluation',
  help: `mtrl train RECIPE.json [--backend B] [--run-dir DIR] [--seed N] [--workers N] [--redis URL] [--queue NAME]

Runs every stage of the recipe in order (pretraining on games played without a plan, SFT on
expert demonstrations, RL on the policy's own episodes), evaluating on held-out seeds before training and after each stage, into
runs/<name>-<time>/ (or DIR): recipe.json (resolved), metrics.jsonl, checkpoints/, eval.json.
--seed N trains with another training seed than the recipe's (data order, initialisation,
training games, sampling; the held-out games stay the same): the run of mtrl ablate's cell
for that seed.

Scale-out (recipe field "scaleOut": { "redis", "workers", "groupsPerJob", "queue" }; flags override):
  --workers N   start N local worker processes (and a local redis-server unless --redis is given)
                that play the RL stages' episodes, so every core plays
  --redis URL   send RL episodes as jobs to the queue at URL, played by mtrl worker processes
                on any machine; the same trajectories as a local run for the same seed
  --queue NAME  the queue's name (default mtrl-rollout; workers: mtrl worker --queue NAME)

Examples:
  mtrl train recipes/default.json
  mtrl train recipes/base.json --run-dir runs/base
  mtrl train recipes/default.json --seed 2
  mtrl train recipes/default.json --workers 2
  mtrl train recipes/default.json --redis redis://10.0.0.1:6379
  mtrl train recipes/paper/algorithms.json --backend tensorflow`,
  flags: trainFlags,
  positionals: true,
  run: recipeCommand((recipe, { redis, workers, queue }: Values<typeof trainFlags>) => E.right(Launch.withScaleOut({ redis, workers, queue })(recipe)))
})

export const sft = make({
  name: 'sft',
  summary: 'run only the SFT stages of a recipe',
  help: `mtrl sft RECIPE.json [--backend B] [--run-dir DIR] [--seed N]

Like mtrl train, keeping only the recipe's sft stages: they train the model that mtrl train's
sft stages train (a scratch model's vocabulary is still built from the whole recipe's
environments).

Example:
  mtrl sft recipes/default.json`,
  flags: sftFlags,
  positionals: true,
  run: recipeCommand((recipe, _values, path) => {
    const narrowed = Recipe.sftOnly(recipe)
    return narrowed === undefined ? E.left(usage(`${path}: the recipe has no sft stage`)) : E.right(narrowed)
  })
})

export const resume = make({
  name: 'resume',
  summary: 'continue a stopped or killed run from its last checkpoint',
  help: `mtrl resume RUN_DIR [--backend B]

Reads RUN_DIR/recipe.json and continues: finished stages are skipped, an RL stage continues
after its last checkpoint (every checkpointEvery iterations) with the same random streams, an
SFT stage after its last mid-stage checkpoint (every stage's checkpointEvery steps) with the
same data order. Metrics of work after the checkpoint are dropped and redone.

Example:
  mtrl resume runs/default-20261130-101500Z`,
  flags: backendFlag,
  positionals: true,
  run: ({ values, positionals }) =>
    pipe(
      TE.fromEither(E.map(RunDir.open)(required(positionals[0], 'which run folder?'))),
      TE.chain((run) =>
        pipe(
          loadRecipe(run.file('recipe.json')),
          TE.chain((recipe) => runIn(recipe, run, values.backend, true))
        )
      )
    )
})
