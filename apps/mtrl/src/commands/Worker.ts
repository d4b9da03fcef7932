/**
 * `mtrl worker --redis URL`: a rollout worker. It plays the episode jobs trainers put on the
 * queue (`mtrl train --redis URL` or `--workers N`), with the environments the jobs name (a
 * recipe's env entry), and stops on SIGTERM or Ctrl-C after the jobs in hand.
 */
import { EnvConfig } from '@mtrl/recipe'
import { LocalWorkers, QueueError, Worker } from '@mtrl/rollout-queue'
import * as E from 'fp-ts/lib/Either.js'
import { hostname } from 'node:os'
import { backendFlag, failed, int, make, text, usage } from '../Command.js'
import { startBackend } from '../Runtime.js'

/** A job's environments from its spec (a recipe's env entry), one source per distinct spec. */
const resolver = () => Worker.cachedSources(EnvConfig.decodeSource("the job's environment", (note) => process.stderr.write(`${note}\n`)))

/** Resolves on SIGINT or SIGTERM, or, for a worker started by `mtrl train --workers N`, once that trainer is gone (even if it was killed). */
const stopRequested = (): Promise<void> => {
  const signal = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
  })
  return Promise.race([signal, LocalWorkers.parentGone()])
}

export const worker = make({
  name: 'worker',
  summary: 'play episode jobs from a Redis queue (scale-out rollouts)',
  help: `mtrl worker --redis URL [--concurrency 1] [--queue mtrl-rollout] [--name NAME] [--backend B]

Takes episode jobs from the queue at URL (put there by mtrl train --redis URL, or --workers N),
loads the policy version each job names (once per version), plays the job's episodes with its
environment (a recipe env entry: textworld, alfworld, swe, http), and returns the trajectories.
Start any number, on any machine that reaches Redis; use the trainer's backend (trajectories are
then the same as a local run's). A worker killed mid-job loses nothing: its job is played by
another after 30 s. SIGTERM or Ctrl-C: finish the jobs in hand, then exit.

Examples:
  mtrl worker --redis redis://10.0.0.1:6379
  mtrl worker --redis redis://10.0.0.1:6379 --concurrency 4    # slow remote (http) environments`,
  flags: { ...backendFlag, redis: text, concurrency: int(1), queue: text, name: text },
  run:
    ({ values }) =>
    async () => {
      const url = values.redis ?? (process.env['MTRL_REDIS'] || undefined)
      if (url === undefined) return E.left(usage('--redis URL is required (e.g. redis://127.0.0.1:6379), or set MTRL_REDIS'))
      const { concurrency } = values
      if (concurrency < 1) return E.left(usage('--concurrency: at least 1'))
      const started = await startBackend(values.backend)()
      if (E.isLeft(started)) return started
      const backend = started.right
      const name = values.name ?? `${hostname()}:${process.pid}`
      const envs = resolver()
      const working = await Worker.start({
        url,
        envs: envs.envs,
        concurrency,
        name,
        ...(values.queue === undefined ? {} : { queue: values.queue }),
        onEvent: (event) => process.stdout.write(`${Worker.describe(event)}\n`)
      })()
      if (E.isLeft(working)) {
        envs.dispose()
        return E.left(failed(QueueError.message(working.left)))
      }
      process.stdout.write(`worker ${name} on ${backend.name}: listening at ${url} (concurrency ${concurrency})\n`)
      await stopRequested()
      process.stdout.write('stopping after the jobs in hand\n')
      await working.right.close()()
      envs.dispose()
      process.stdout.write(`stopped (${working.right.finished()} jobs played)\n`)
      return E.right(0)
    }
})
