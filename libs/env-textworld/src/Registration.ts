/**
 * TextWorld's entry in the environment registry (`@mtrl/core` `EnvEntry`): the recipe entry
 * `{ "kind": "textworld", "settings": "w2-o3-q4" }` (or the settings object; `admissible`,
 * `reward`), its source, and the CLI's `textworld` and `cooking` names with their flags.
 *
 * @since 0.7.0
 */
import { EnvEntry } from '@mtrl/core'
import * as t from 'io-ts'
import * as Settings from './Settings.js'
import * as TextWorld from './TextWorld.js'

/**
 * A TextWorld game: `"w2-o3-q4"`, `"tw-simple-dense-detailed"`, or the settings object.
 *
 * @category codecs
 * @since 0.7.0
 */
export const Config = t.intersection([
  t.type({ kind: t.literal('textworld'), settings: t.union([Settings.SettingsFromString, Settings.Settings]) }),
  t.partial({ admissible: t.boolean, reward: t.union([t.literal('score'), t.literal('intermediate')]) })
])
export type Config = t.TypeOf<typeof Config>

const source = (config: Config) =>
  TextWorld.source(config.settings, {
    ...(config.admissible === undefined ? {} : { admissible: config.admissible }),
    ...(config.reward === undefined ? {} : { reward: config.reward })
  })

const custom = (v: EnvEntry.FlagValues): unknown => {
  if (v['config'] !== undefined) return { kind: 'textworld', settings: v['config'] }
  const sizes = { rooms: v['rooms'] ?? 2, objects: v['objects'] ?? 3, questLength: v['quest'] ?? 4 }
  return { kind: 'textworld', settings: { _tag: 'custom', ...sizes, ...(v['objective'] === undefined ? {} : { objective: v['objective'] }) } }
}

const cooking = (v: EnvEntry.FlagValues): unknown => ({
  kind: 'textworld',
  settings: v['config'] ?? `tw-simple-${String(v['rewards'] ?? 'dense')}-${String(v['goal'] ?? 'detailed')}${v['test'] === true ? '-test' : ''}`
})

/**
 * The page's TextWorld presets (the paper's `wW-oO-qQ` games), the default game first.
 *
 * @category constants
 * @since 0.7.0
 */
export const presets: ReadonlyArray<string> = ['w2-o3-q4', 'w1-o2-q2', 'w4-o6-q8', 'w6-o9-q4', 'w8-o12-q4']

/**
 * The registry entry.
 *
 * @category instances
 * @since 0.7.0
 */
export const entry: EnvEntry.EnvEntry = EnvEntry.make({
  kind: 'textworld',
  doc: 'TextWorld games: rooms, objects and a quest (wW-oO-qQ), or the cooking games',
  Config,
  source,
  hasExpert: true,
  label: (config) => source(config).name,
  cli: [
    {
      name: 'textworld',
      flags: { rooms: 'int', objects: 'int', quest: 'int', objective: 'text', config: 'text' },
      help: '--rooms 2 --objects 3 --quest 4 [--objective steps|brief|none] | --config w2-o3-q4',
      config: custom
    },
    {
      name: 'cooking',
      flags: { rewards: 'text', goal: 'text', test: 'bool', config: 'text' },
      help: '--rewards sparse|balanced|dense --goal detailed|brief|none [--test]',
      config: cooking
    }
  ],
  page: { label: 'TextWorld', presets: presets.map((name) => ({ name, config: { kind: 'textworld', settings: name } })) }
})
