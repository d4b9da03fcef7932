/**
 * Start-up of the compute backend for a command: `--backend`, else `MTRL_BACKEND`, else auto.
 * The chosen backend is printed, and returned so runs can record it.
 */
import { Backend, Host } from '@mtrl/backend'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { fileURLToPath } from 'node:url'
import { backendUnavailable, usage, type CliError } from './Command.js'

/** This app's bin/mtrl.mjs (from src/ and from the built dist/ alike): what local `mtrl worker` processes run. */
export const bin = fileURLToPath(new URL('../bin/mtrl.mjs', import.meta.url))

/** The backend `--backend` names (else `MTRL_BACKEND`'s, else auto), started; an unknown name is a usage error. */
export const startBackend = (flag: string | undefined, quiet = false): TE.TaskEither<CliError, Backend.Selected> =>
  TE.mapLeft((e: Backend.BackendError) => (e._tag === 'UnknownBackend' ? usage : backendUnavailable)(Backend.message(e)))(
    Host.start(flag, quiet ? undefined : (text) => void process.stderr.write(`${text}\n`))
  )
