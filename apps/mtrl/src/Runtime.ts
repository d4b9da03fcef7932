/**
 * Start-up of the compute backend for a command: `--backend`, else `MTRL_BACKEND`, else auto.
 * The chosen backend is printed, and returned so runs can record it.
 */
import { Backend, Host } from '@mtrl/backend'
import * as TE from 'fp-ts/lib/TaskEither.js'
import type { Pipeline } from '@mtrl/recipe'
import { fileURLToPath } from 'node:url'
import { backendUnavailable, usage, type CliError } from './Command.js'

/** This app's bin/mtrl.mjs (from src/ and from the built dist/ alike): what local `mtrl worker` processes run. */
export const bin = fileURLToPath(new URL('../bin/mtrl.mjs', import.meta.url))

export const startBackend = (flag: string | undefined, quiet = false): TE.TaskEither<CliError, Backend.Selected> =>
  TE.mapLeft((e: Backend.BackendError) => (e._tag === 'UnknownBackend' ? usage : backendUnavailable)(Backend.message(e)))(
    Host.start(flag, quiet ? undefined : (text) => void process.stderr.write(`${text}\n`))
  )

/** Ctrl-C once: finish the current iteration, write a checkpoint, stop. Twice: stop now. */
export const stopOnInterrupt = (): Pipeline.StopSignal & { readonly release: () => void } => {
  let requested = false
  const onSignal = (): void => {
    if (requested) process.exit(130)
    requested = true
    process.stderr.write('\nstopping after the current iteration (Ctrl-C again to stop now)\n')
  }
  process.on('SIGINT', onSignal)
  return { requested: () => requested, release: () => process.off('SIGINT', onSignal) }
}
