/**
 * The shape of an mtrl sub-command, its errors (values, through to `main`, which maps them to
 * exit codes), and the shared flag parsing.
 */
import type { RunError } from '@mtrl/recipe'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { parseArgs, type ParseArgsConfig } from 'node:util'

/**
 * What a command can fail with: `Usage` (bad flags or input; exit 2, with the help hint),
 * `BackendUnavailable` (exit 3), `Stopped` (on request, after a checkpoint; exit 130),
 * `Failed` (anything a library reported; exit 1).
 */
export type CliError =
  | { readonly _tag: 'Usage'; readonly message: string }
  | { readonly _tag: 'BackendUnavailable'; readonly message: string }
  | { readonly _tag: 'Stopped'; readonly message: string }
  | { readonly _tag: 'Failed'; readonly message: string }

export const usage = (message: string): CliError => ({ _tag: 'Usage', message })
export const backendUnavailable = (message: string): CliError => ({ _tag: 'BackendUnavailable', message })
export const stopped = (message: string): CliError => ({ _tag: 'Stopped', message })
export const failed = (message: string): CliError => ({ _tag: 'Failed', message })

/** A recipe run's error as the command's: a failure, or a stop on request. */
export const fromRun = (error: RunError.RunError): CliError => (error._tag === 'Failed' ? failed(error.message) : stopped(error.message))

export const exitCode = (error: CliError): number => {
  switch (error._tag) {
    case 'Usage':
      return 2
    case 'BackendUnavailable':
      return 3
    case 'Stopped':
      return 130
    case 'Failed':
      return 1
  }
}

export interface Command {
  readonly name: string
  readonly summary: string
  /** Full help text: usage, flags, examples. */
  readonly help: string
  /** Runs the command: the process exit code, or what went wrong. */
  readonly run: (argv: ReadonlyArray<string>) => TE.TaskEither<CliError, number>
}

export type Options = NonNullable<ParseArgsConfig['options']>

/** Parses flags strictly: an unknown flag is a usage error naming it. */
export const parseFlags = <O extends Options>(argv: ReadonlyArray<string>, options: O, allowPositionals = false) =>
  E.tryCatch(
    () => parseArgs<{ args: string[]; options: O; allowPositionals: boolean; strict: true }>({ args: [...argv], options, allowPositionals, strict: true }),
    (e) => usage(e instanceof Error ? e.message : String(e))
  )

/** A flag value as a number, or a usage error naming the flag. */
export const numberFlag = (name: string, raw: string | undefined, fallback: number): E.Either<CliError, number> => {
  if (raw === undefined) return E.right(fallback)
  const value = Number(raw)
  return Number.isFinite(value) ? E.right(value) : E.left(usage(`--${name}: expected a number, got "${raw}"`))
}

/** A flag value as a non-negative integer. */
export const intFlag = (name: string, raw: string | undefined, fallback: number): E.Either<CliError, number> =>
  E.chain((value: number) => (Number.isInteger(value) && value >= 0 ? E.right(value) : E.left(usage(`--${name}: expected a non-negative integer, got "${raw}"`))))(numberFlag(name, raw, fallback))

/** A required value, or a usage error saying what is missing. */
export const required = <A>(value: A | undefined, missing: string): E.Either<CliError, A> => (value === undefined ? E.left(usage(missing)) : E.right(value))

export const backendFlag = { backend: { type: 'string' } } as const
