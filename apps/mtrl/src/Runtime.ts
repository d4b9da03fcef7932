/**
 * Start-up of the compute backend for a command: `--backend`, else `MTRL_BACKEND`, else auto.
 * The chosen backend is printed, and returned so runs can record it.
 */
import { Backend } from '@mtrl/backend'
import * as E from 'fp-ts/lib/Either.js'
import { UsageError } from './Command.js'

export class BackendUnavailable extends Error {
  override readonly name = 'BackendUnavailable'
}

export const startBackend = async (flag: string | undefined, quiet = false): Promise<Backend.Selected> => {
  const parsed = flag === undefined ? Backend.fromEnvironment() : Backend.parseName(flag)
  if (typeof parsed !== 'string') throw new UsageError(Backend.message(parsed))
  const result = await Backend.select(parsed)()
  if (E.isLeft(result)) throw new BackendUnavailable(Backend.message(result.left))
  if (!quiet) process.stderr.write(`backend: ${result.right.name} (${result.right.via}, ${result.right.threads} thread${result.right.threads === 1 ? '' : 's'})\n`)
  return result.right
}
