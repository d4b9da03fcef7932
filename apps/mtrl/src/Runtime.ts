/**
 * Start-up of the compute backend for a command: `--backend`, else `MTRL_BACKEND`, else auto.
 * The chosen backend is printed, and returned so runs can record it.
 */
import { Backend } from '@mtrl/backend'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { backendUnavailable, usage, type CliError } from './Command.js'

export const startBackend =
  (flag: string | undefined, quiet = false): TE.TaskEither<CliError, Backend.Selected> =>
  async () => {
    const parsed = flag === undefined ? Backend.fromEnvironment() : Backend.parseName(flag)
    if (typeof parsed !== 'string') return E.left(usage(Backend.message(parsed)))
    const result = await Backend.select(parsed)()
    if (E.isLeft(result)) return E.left(backendUnavailable(Backend.message(result.left)))
    if (!quiet) process.stderr.write(`backend: ${result.right.name} (${result.right.via}, ${result.right.threads} thread${result.right.threads === 1 ? '' : 's'})\n`)
    return E.right(result.right)
  }
