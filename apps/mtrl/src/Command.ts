/**
 * The commands' vocabulary: `Command` of @mtrl/cli (flags declared as data, errors as values
 * with exit codes), and what this app adds to it: the `--backend` flag, and a recipe run's error
 * as a command's.
 */
import { Command } from '@mtrl/cli'
import type { RunError } from '@mtrl/recipe'

export const { usage, backendUnavailable, stopped, failed, text, list, bool, int, float, required, make } = Command
export type CliError = Command.CliError
export type Flag = Command.Flag
export type Values<F extends Command.Flags> = Command.Values<F>
export type Parsed<F extends Command.Flags> = Command.Parsed<F>

export const backendFlag = { backend: text } as const

/** A recipe run's error as the command's: a failure, or a stop on request. */
export const fromRun = (error: RunError.RunError): CliError => (error._tag === 'Failed' ? failed(error.message) : stopped(error.message))
