/**
 * The shape of an mtrl sub-command and the shared flag parsing.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'

export interface Command {
  readonly name: string
  readonly summary: string
  /** Full help text: usage, flags, examples. */
  readonly help: string
  /** Runs the command; resolves to the process exit code. */
  readonly run: (argv: ReadonlyArray<string>) => Promise<number>
}

/** A usage error: printed with the command's help hint, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

export type Options = NonNullable<ParseArgsConfig['options']>

/** Parses flags strictly: unknown flags are a UsageError naming the flag. */
export const parseFlags = <O extends Options>(argv: ReadonlyArray<string>, options: O, allowPositionals = false) => {
  try {
    return parseArgs<{ args: string[]; options: O; allowPositionals: boolean; strict: true }>({ args: [...argv], options, allowPositionals, strict: true })
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e))
  }
}

/** A flag value as a number, or a UsageError naming the flag. */
export const numberFlag = (name: string, raw: string | undefined, fallback: number): number => {
  if (raw === undefined) return fallback
  const value = Number(raw)
  if (!Number.isFinite(value)) throw new UsageError(`--${name}: expected a number, got "${raw}"`)
  return value
}

/** A flag value as a non-negative integer. */
export const intFlag = (name: string, raw: string | undefined, fallback: number): number => {
  const value = numberFlag(name, raw, fallback)
  if (!Number.isInteger(value) || value < 0) throw new UsageError(`--${name}: expected a non-negative integer, got "${raw}"`)
  return value
}

export const backendFlag = { backend: { type: 'string' } } as const
