/**
 * Environment flags shared by play, serve-env, eval and collect: the kind (textworld, cooking,
 * alfworld, swe) and its settings, decoded into the recipe's environment configuration.
 */
import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { intFlag, UsageError } from './Command.js'
import { EnvConfig } from './recipe/EnvConfig.js'

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

/** The environment named by `ENV` and its flags, decoded like a recipe's. */
export const envFromFlags = (kind: string, values: Record<string, string | boolean | undefined>): EnvConfig => {
  const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined)
  let candidate: unknown
  switch (kind) {
    case 'textworld': {
      const config = str('config')
      if (config !== undefined) candidate = { kind, settings: config }
      else {
        const rooms = intFlag('rooms', str('rooms'), 2)
        const objects = intFlag('objects', str('objects'), 3)
        const quest = intFlag('quest', str('quest'), 4)
        candidate = { kind, settings: { _tag: 'custom', rooms, objects, questLength: quest, ...(str('objective') === undefined ? {} : { objective: str('objective') }) } }
      }
      break
    }
    case 'cooking':
      candidate = { kind: 'textworld', settings: str('config') ?? `tw-simple-${str('rewards') ?? 'dense'}-${str('goal') ?? 'detailed'}${values['test'] === true ? '-test' : ''}` }
      break
    case 'alfworld':
      candidate = { kind, settings: { ...(str('split') === undefined ? {} : { split: str('split') }), ...(str('task') === undefined ? {} : { taskTypes: [str('task')] }) } }
      break
    case 'swe':
      candidate = { kind, settings: { ...(str('tier') === undefined ? {} : { tier: str('tier') }) } }
      break
    default:
      throw new UsageError(`unknown environment "${kind}" (expected textworld, cooking, alfworld or swe)`)
  }
  const decoded = Decode.decode('environment flags', EnvConfig)(candidate)
  if (E.isLeft(decoded)) throw new UsageError(Decode.formatError(decoded.left))
  return decoded.right
}

