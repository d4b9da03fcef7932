/**
 * Scale-out for a training run (`LocalWorkers` of @mtrl/rollout-queue): the queue named by
 * `--redis` (or the recipe's `scaleOut.redis`), a local `redis-server` when only `--workers N` is
 * given, and N local `mtrl worker` processes on the trainer's backend.
 */
import { LocalWorkers } from '@mtrl/rollout-queue'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { fileURLToPath } from 'node:url'
import { failed, type CliError } from './Command.js'
import type { Recipe } from '@mtrl/recipe'

const bin = fileURLToPath(new URL('../bin/mtrl.mjs', import.meta.url))

/** Starts what `settings` asks for (none when it asks for nothing); a failure stops what was started and says why. */
export const start = (settings: Recipe.ScaleOut, backend: string, line: (text: string) => void): TE.TaskEither<CliError, LocalWorkers.Started | undefined> => {
  const { workers = 0, queue } = settings
  if (settings.redis === undefined && workers === 0) return TE.right(undefined)
  const onEvent = (e: LocalWorkers.Event): void => line(LocalWorkers.describeEvent(backend)(e))
  const command = (url: string, name: string): ReadonlyArray<string> => [
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
  return pipe(
    LocalWorkers.start({ ...settings, workers, command, onEvent }),
    TE.mapLeft((e) => failed(LocalWorkers.describeError(e)))
  )
}
