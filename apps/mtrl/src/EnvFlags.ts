/**
 * Environment flags shared by play, serve-env, eval, collect and probe: the names the registered
 * environment kinds offer (`@mtrl/recipe` `EnvConfig.entries()`: textworld, cooking, alfworld,
 * swe, and any registered since) with their flags, decoded into the recipe's environment entry.
 */
import { Decode, type Env, type EnvEntry } from '@mtrl/core'
import { EnvConfig } from '@mtrl/recipe'
import * as E from 'fp-ts/lib/Either.js'
import { bool, int, text, usage, type CliError, type Flag } from './Command.js'

/** The source of an environment entry; what people should know before it starts goes to stderr. */
export const envSource = (config: EnvConfig.EnvConfig): Env.EnvSource => EnvConfig.source(config, (note) => process.stderr.write(`${note}\n`))

const names = (): ReadonlyArray<EnvEntry.CliName> => EnvConfig.entries().flatMap((entry) => entry.cli)

const flagOf: Readonly<Record<EnvEntry.Flag, Flag>> = { text, int: int(), bool }

/** Every registered name's flags (a flag two names share is declared once). */
export const envFlags: Readonly<Record<string, Flag>> = Object.fromEntries(
  names().flatMap((name) => Object.entries(name.flags).map(([flag, type]) => [flag, flagOf[type]] as const))
)

/** One help line per name: `  cooking     --rewards sparse|balanced|dense ...`. */
export const envFlagsHelp = names()
  .map((name) => `  ${name.name.padEnd(11)} ${name.help}`)
  .join('\n')

/** The names the CLI offers: `textworld, cooking, alfworld or swe`. */
export const envNames = (): string => {
  const all = names().map((name) => name.name)
  return all.length < 2 ? all.join('') : `${all.slice(0, -1).join(', ')} or ${all[all.length - 1]}`
}

/** The environment named by `ENV` and its flags, decoded like a recipe's. */
export const envFromFlags = (name: string | undefined, values: EnvEntry.FlagValues): E.Either<CliError, EnvConfig.EnvConfig> => {
  if (name === undefined) return E.left(usage(`which environment? (${envNames()})`))
  const named = names().find((n) => n.name === name)
  if (named === undefined) return E.left(usage(`unknown environment "${name}" (expected ${envNames()})`))
  return E.mapLeft((e: Decode.DecodeError) => usage(Decode.formatError(e)))(Decode.decode('environment flags', EnvConfig.EnvConfig)(named.config(values)))
}

/** The environment source `ENV` and its flags name (play, serve-env, collect). */
export const openEnv = (name: string | undefined, values: EnvEntry.FlagValues): E.Either<CliError, Env.EnvSource> =>
  E.map(envSource)(envFromFlags(name, values))
