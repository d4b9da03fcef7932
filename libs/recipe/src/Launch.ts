/**
 * A recipe run into a run folder as the command line runs it: the backend recorded
 * (backend.json), the recipe's scale-out started for its RL stages (`LocalWorkers` of
 * @mtrl/rollout-queue: the queue at `scaleOut.redis`, or a local redis-server, and
 * `scaleOut.workers` local `mtrl worker` processes on the run's backend), the {@link Pipeline}
 * run with it, and the scale-out stopped however the run ends. What `mtrl train`, `sft` and
 * `resume` run once their flags are read.
 *
 * @since 0.2.0
 */
import { LocalWorkers } from '@mtrl/rollout-queue'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as Pipeline from './Pipeline.js'
import type { Resolved, ScaleOut } from './Recipe.js'
import { failed, type RunError } from './RunError.js'

/**
 * The pipeline's options (`queue` is the scale-out's), and `workerBin`: the script that starts
 * an `mtrl worker` process (the app's bin/mtrl.mjs).
 *
 * @category models
 * @since 0.2.0
 */
export interface Options extends Omit<Pipeline.Options, 'queue' | 'resume'> {
  readonly resume: boolean
  readonly workerBin: string
}

/**
 * The recipe's `scaleOut` with the given settings over it (the command line's `--redis`,
 * `--workers`, `--queue`); the recipe itself when none is given.
 *
 * @category combinators
 * @since 0.2.0
 */
export const withScaleOut =
  (overrides: ScaleOut) =>
  (recipe: Resolved): Resolved => {
    const given = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as ScaleOut
    return Object.keys(given).length === 0 ? recipe : { ...recipe, scaleOut: { ...recipe.scaleOut, ...given } }
  }

/** The arguments of `node` that start worker `name` on the queue at `url`, on `backend`. */
const workerCommand =
  (bin: string, backend: string, queue: string | undefined) =>
  (url: string, name: string): ReadonlyArray<string> => [
    bin,
    'worker',
    '--redis',
    url,
    '--backend',
    backend,
    '--name',
    name,
    ...(queue === undefined ? [] : ['--queue', queue])
  ]

/** Starts what `settings` asks for (nothing when it asks for nothing); a failure has stopped what was started. */
const startScaleOut = (settings: ScaleOut, options: Options): TE.TaskEither<RunError, LocalWorkers.Started | undefined> => {
  const { workers = 0, queue } = settings
  const backend = options.backend.name
  if (settings.redis === undefined && workers === 0) return async () => E.right(undefined)
  const onEvent = (e: LocalWorkers.Event): void => options.reporter.line(LocalWorkers.describeEvent(backend)(e))
  const started = LocalWorkers.start({ ...settings, workers, command: workerCommand(options.workerBin, backend, queue), onEvent })
  return async () => E.mapLeft((e: LocalWorkers.StartError) => failed(LocalWorkers.describeError(e)))(await started())
}

/**
 * Runs (or, with `resume`, continues) `recipe` in `options.run`: reports `run NAME -> PATH` (or
 * `resuming ...`), records the backend, scales out when an RL stage is there to play, and
 * returns the pipeline's summary.
 *
 * @category running
 * @since 0.2.0
 */
export const run =
  (options: Options) =>
  (recipe: Resolved): TE.TaskEither<RunError, Pipeline.Summary> =>
  async () => {
    const { run, reporter, resume } = options
    run.writeJson('backend.json', options.backend)
    reporter.line(`${resume ? 'resuming' : 'run'} ${recipe.name} -> ${run.path}`)
    const rl = recipe.stages.some((s) => s.kind === 'rl')
    const scaleOut = rl ? await startScaleOut(recipe.scaleOut ?? {}, options)() : E.right(undefined)
    if (E.isLeft(scaleOut)) return scaleOut
    const { workerBin: _, ...pipeline } = options
    const queue = scaleOut.right?.runner
    return Pipeline.run({ ...pipeline, ...(queue === undefined ? {} : { queue }) })(recipe)().finally(() => scaleOut.right?.stop())
  }
