/**
 * The shape of a sub-command, its errors (values, through to {@link Program.run}, which maps
 * them to exit codes), and its flags, declared once as data: `make` parses and checks them (an
 * unknown flag or a bad number is a usage error naming the flag, with the nearest known one)
 * before the command runs.
 *
 * @since 0.1.0
 */
import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { parseArgs } from 'node:util'

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

/** One flag: a string (`multiple`: repeatable), a switch, or a number (`int`: non-negative integer) with its default. */
export type Flag =
  | { readonly type: 'string'; readonly multiple?: true }
  | { readonly type: 'boolean' }
  | { readonly type: 'string'; readonly number: 'int' | 'float'; readonly fallback?: number }

export type Flags = Readonly<Record<string, Flag>>

/** Flag constructors: `text`, `list`, `bool`, `int(default?)`, `float(default?)`. */
export const text = { type: 'string' } as const
export const list = { type: 'string', multiple: true } as const
export const bool = { type: 'boolean' } as const
export const int = <D extends number | undefined = undefined>(fallback?: D) =>
  ({ type: 'string', number: 'int', fallback }) as { readonly type: 'string'; readonly number: 'int'; readonly fallback: D }
export const float = <D extends number | undefined = undefined>(fallback?: D) =>
  ({ type: 'string', number: 'float', fallback }) as { readonly type: 'string'; readonly number: 'float'; readonly fallback: D }

type ValueOf<F> = F extends { readonly number: string; readonly fallback: infer D }
  ? D extends number
    ? number
    : number | undefined
  : F extends { readonly type: 'boolean' }
    ? boolean | undefined
    : F extends { readonly multiple: true }
      ? string[] | undefined
      : string | undefined

/** The values of parsed flags, each typed by its declaration. */
export type Values<F extends Flags> = { readonly [K in keyof F]: ValueOf<F[K]> }

export interface Parsed<F extends Flags> {
  readonly values: Values<F>
  readonly positionals: ReadonlyArray<string>
}

/** A number flag's value: `--name: expected a number` or `a non-negative integer`, naming the flag and the value given. */
const numberOf = (name: string, raw: string, kind: 'int' | 'float'): E.Either<CliError, number> => {
  const value = Number(raw)
  if (!Number.isFinite(value)) return E.left(usage(`--${name}: expected a number, got "${raw}"`))
  return kind === 'float' || (Number.isInteger(value) && value >= 0)
    ? E.right(value)
    : E.left(usage(`--${name}: expected a non-negative integer, got "${raw}"`))
}

/** Parses flags strictly (an unknown flag is a usage error naming it) and checks every number flag given. */
export const parse =
  <F extends Flags>(flags: F, allowPositionals: boolean) =>
  (argv: ReadonlyArray<string>): E.Either<CliError, Parsed<F>> => {
    const options = Object.fromEntries(
      Object.entries(flags).map(([name, flag]) => [name, { type: flag.type, ...('multiple' in flag ? { multiple: true } : {}) }])
    )
    const parsed = E.tryCatch(
      () => parseArgs({ args: [...argv], options, allowPositionals, strict: true }),
      (e) => {
        const message = e instanceof Error ? e.message : String(e)
        const unknown = /^Unknown option '--([^']+)'/.exec(message)?.[1]
        const near = unknown === undefined ? undefined : Decode.nearest(unknown, Object.keys(flags))
        return usage(near === undefined ? message : `${message} (did you mean --${near}?)`)
      }
    )
    if (E.isLeft(parsed)) return parsed
    const values: Record<string, unknown> = { ...parsed.right.values }
    for (const [name, flag] of Object.entries(flags)) {
      if (!('number' in flag)) continue
      const raw = values[name]
      const value = typeof raw === 'string' ? numberOf(name, raw, flag.number) : E.right(flag.fallback)
      if (E.isLeft(value)) return value
      values[name] = value.right
    }
    return E.right({ values: values as Values<F>, positionals: parsed.right.positionals })
  }

/** A required value, or a usage error saying what is missing. */
export const required = <A>(value: A | undefined, missing: string): E.Either<CliError, A> => (value === undefined ? E.left(usage(missing)) : E.right(value))

export interface Command {
  readonly name: string
  readonly summary: string
  /** Full help text: usage, flags, examples. */
  readonly help: string
  /** The flags it takes (every one is named in `help`). */
  readonly flags: Flags
  /** Runs the command: the process exit code, or what went wrong. */
  readonly run: (argv: ReadonlyArray<string>) => TE.TaskEither<CliError, number>
}

/** A command whose `run` gets its flags parsed and checked (`positionals`: it takes arguments besides flags). */
export const make = <F extends Flags>(command: {
  readonly name: string
  readonly summary: string
  readonly help: string
  readonly flags: F
  readonly positionals?: true
  readonly run: (parsed: Parsed<F>) => TE.TaskEither<CliError, number>
}): Command => ({ ...command, run: (argv) => pipe(TE.fromEither(parse(command.flags, command.positionals === true)(argv)), TE.chain(command.run)) })
