/**
 * ALFWorld's entry in the environment registry (`@mtrl/core` `EnvEntry`): the recipe entry
 * `{ "kind": "alfworld", "settings": { "split": "train", "taskTypes": [...] } }`, its source, and
 * the CLI's `alfworld` name with `--task` and `--split`.
 *
 * @since 0.7.0
 */
import { EnvEntry } from '@mtrl/core'
import * as t from 'io-ts'
import * as AlfWorld from './AlfWorld.js'

/**
 * ALFWorld-style household tasks of a split.
 *
 * @category codecs
 * @since 0.7.0
 */
export const Config = t.type({ kind: t.literal('alfworld'), settings: AlfWorld.Settings })
export type Config = t.TypeOf<typeof Config>

const optional = (key: string, value: unknown) => (value === undefined ? {} : { [key]: value })

/**
 * The registry entry.
 *
 * @category instances
 * @since 0.7.0
 */
export const entry: EnvEntry.EnvEntry = EnvEntry.make({
  kind: 'alfworld',
  doc: 'ALFWorld-style household tasks (pick, clean, heat, cool, examine, place two)',
  Config,
  source: (config: Config) => AlfWorld.source(config.settings),
  hasExpert: true,
  label: (config: Config) => AlfWorld.spec(config.settings).name,
  cli: [
    {
      name: 'alfworld',
      flags: { task: 'text', split: 'text' },
      help: '--task pick_heat_then_place_in_recep --split train|valid-seen|valid-unseen',
      config: (v) => ({
        kind: 'alfworld',
        settings: { ...optional('split', v['split']), ...optional('taskTypes', v['task'] === undefined ? undefined : [v['task']]) }
      })
    }
  ],
  page: { label: 'ALFWorld', presets: [{ name: 'all task types', config: { kind: 'alfworld', settings: { split: 'train' } } }] }
})
