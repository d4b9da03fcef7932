/**
 * Environment flags shared by play, serve-env, eval and collect: the kind (textworld, cooking,
 * alfworld, swe) and its settings, decoded into the recipe's environment configuration.
 */
import { Decode, type Env } from '@mtrl/core'
import { EnvConfig } from '@mtrl/recipe'
import * as E from 'fp-ts/lib/Either.js'
import { pipe } from 'fp-ts/lib/function.js'
import { intFlag, usage, type CliError } from './Command.js'

/** The source of an environment entry; what people should know before it starts goes to stderr. */
export const envSource = (config: EnvConfig.EnvConfig): Env.EnvSource => EnvConfig.source(config, (text) => process.stderr.write(`${text}\n`))

export const envFlags = {
  config: { type: 'string' },
  rooms: { type: 'string' },
  objects: { type: 'string' },
  quest: { type: 'string' },
  objective: { type: 'string' },
  rewards: { type: 'string' },
  goal: { type: 'string' },
  test: { type: 'boolean' },
  task: { type: 'string' },
  split: { type: 'string' },
  tier: { type: 'string' }
} as const

export const envFlagsHelp = `  textworld   --rooms 2 --objects 3 --quest 4 [--objective steps|brief|none] | --config w2-o3-q4
  cooking     --rewards sparse|balanced|dense --goal detailed|brief|none [--test]
  alfworld    --task pick_heat_then_place_in_recep --split train|valid-seen|valid-unseen
  swe         --tier easy|medium|hard`

const textworld = (str: (k: string) => string | undefined): E.Either<CliError, unknown> => {
  const config = str('config')
  if (config !== undefined) return E.right({ kind: 'textworld', settings: config })
  const objective = str('objective')
  return pipe(
    E.Do,
    E.apS('rooms', intFlag('rooms', str('rooms'), 2)),
    E.apS('objects', intFlag('objects', str('objects'), 3)),
    E.apS('questLength', intFlag('quest', str('quest'), 4)),
    E.map((sizes) => ({ kind: 'textworld', settings: { _tag: 'custom', ...sizes, ...(objective === undefined ? {} : { objective }) } }))
  )
}

/** The environment named by `ENV` and its flags, decoded like a recipe's. */
export const envFromFlags = (kind: string | undefined, values: Readonly<Record<string, unknown>>): E.Either<CliError, EnvConfig.EnvConfig> => {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined)
  const optional = (key: string, value: unknown) => (value === undefined ? {} : { [key]: value })
  const candidates: Record<string, () => E.Either<CliError, unknown>> = {
    textworld: () => textworld(str),
    cooking: () => E.right({ kind: 'textworld', settings: str('config') ?? `tw-simple-${str('rewards') ?? 'dense'}-${str('goal') ?? 'detailed'}${values['test'] === true ? '-test' : ''}` }),
    alfworld: () => E.right({ kind: 'alfworld', settings: { ...optional('split', str('split')), ...optional('taskTypes', str('task') === undefined ? undefined : [str('task')]) } }),
    swe: () => E.right({ kind: 'swe', settings: optional('tier', str('tier')) })
  }
  if (kind === undefined) return E.left(usage('which environment? (textworld, cooking, alfworld or swe)'))
  const candidate = candidates[kind]
  if (candidate === undefined) return E.left(usage(`unknown environment "${kind}" (expected textworld, cooking, alfworld or swe)`))
  return pipe(
    candidate(),
    E.chain((json) => E.mapLeft((e: Decode.DecodeError) => usage(Decode.formatError(e)))(Decode.decode('environment flags', EnvConfig.EnvConfig)(json)))
  )
}
