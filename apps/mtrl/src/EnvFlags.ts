/**
 * Environment flags shared by play, serve-env, eval and collect: the kind (textworld, cooking,
 * alfworld, swe) and its settings, decoded into the recipe's environment configuration.
 */
import { Decode, type Env } from '@mtrl/core'
import { EnvConfig } from '@mtrl/recipe'
import * as E from 'fp-ts/lib/Either.js'
import { bool, int, text, usage, type CliError, type Values } from './Command.js'

/** The source of an environment entry; what people should know before it starts goes to stderr. */
export const envSource = (config: EnvConfig.EnvConfig): Env.EnvSource => EnvConfig.source(config, (note) => process.stderr.write(`${note}\n`))

export const envFlags = {
  config: text,
  rooms: int(),
  objects: int(),
  quest: int(),
  objective: text,
  rewards: text,
  goal: text,
  test: bool,
  task: text,
  split: text,
  tier: text
}

export const envFlagsHelp = `  textworld   --rooms 2 --objects 3 --quest 4 [--objective steps|brief|none] | --config w2-o3-q4
  cooking     --rewards sparse|balanced|dense --goal detailed|brief|none [--test]
  alfworld    --task pick_heat_then_place_in_recep --split train|valid-seen|valid-unseen
  swe         --tier easy|medium|hard`

type EnvValues = Values<typeof envFlags>

const textworld = (v: EnvValues): unknown => {
  if (v.config !== undefined) return { kind: 'textworld', settings: v.config }
  const sizes = { rooms: v.rooms ?? 2, objects: v.objects ?? 3, questLength: v.quest ?? 4 }
  return { kind: 'textworld', settings: { _tag: 'custom', ...sizes, ...(v.objective === undefined ? {} : { objective: v.objective }) } }
}

/** The environment named by `ENV` and its flags, decoded like a recipe's. */
export const envFromFlags = (kind: string | undefined, v: EnvValues): E.Either<CliError, EnvConfig.EnvConfig> => {
  const optional = (key: string, value: unknown) => (value === undefined ? {} : { [key]: value })
  const candidates: Record<string, () => unknown> = {
    textworld: () => textworld(v),
    cooking: () => ({ kind: 'textworld', settings: v.config ?? `tw-simple-${v.rewards ?? 'dense'}-${v.goal ?? 'detailed'}${v.test === true ? '-test' : ''}` }),
    alfworld: () => ({ kind: 'alfworld', settings: { ...optional('split', v.split), ...optional('taskTypes', v.task === undefined ? undefined : [v.task]) } }),
    swe: () => ({ kind: 'swe', settings: optional('tier', v.tier) })
  }
  if (kind === undefined) return E.left(usage('which environment? (textworld, cooking, alfworld or swe)'))
  const candidate = candidates[kind]
  if (candidate === undefined) return E.left(usage(`unknown environment "${kind}" (expected textworld, cooking, alfworld or swe)`))
  return E.mapLeft((e: Decode.DecodeError) => usage(Decode.formatError(e)))(Decode.decode('environment flags', EnvConfig.EnvConfig)(candidate()))
}
