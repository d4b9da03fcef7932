/**
 * Start-up of the compute backend for a command: `--backend`, else `MTRL_BACKEND`, else auto.
 * The chosen backend is printed, and returned so runs can record it.
 */
import { Backend } from '@mtrl/backend'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import type { Pipeline } from '@mtrl/recipe'
import { backendUnavailable, usage, type CliError } from './Command.js'

export const startBackend =
  (flag: string | undefined, quiet = false): TE.TaskEither<CliError, Backend.Selected> =>
  async () => {
    const parsed = flag === undefined ? Backend.fromEnvironment() : Backend.parseName(flag)
    if (typeof parsed !== 'string') return E.left(usage(Backend.message(parsed)))
    const result = await Backend.select(parsed)()
    if (E.isLeft(result)) return E.left(backendUnavailable(Backend.message(result.left)))
    if (!quiet) {
      process.stderr.write(`backend: ${result.right.name} (${result.right.via}, ${result.right.threads} thread${result.right.threads === 1 ? '' : 's'})\n`)
      const hint = Backend.fasterHint(result.right, Backend.availability())
      if (hint !== undefined) process.stderr.write(`${hint}\n`)
    }
    return E.right(result.right)
  }

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
