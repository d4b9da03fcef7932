/**
 * The SWE environment's entry in the environment registry (`@mtrl/core` `EnvEntry`): the recipe
 * entry `{ "kind": "swe", "settings": { "tier": "easy" } }`, its source (it says which sandbox it
 * runs in before it starts), and the CLI's `swe` name with `--tier`.
 *
 * @since 0.7.0
 */
import { EnvEntry } from '@mtrl/core'
import * as t from 'io-ts'
import * as Settings from './Settings.js'
import * as Swe from './Swe.js'

/**
 * Repository-repair tasks of a tier, run in the sandbox.
 *
 * @category codecs
 * @since 0.7.0
 */
export const Config = t.type({ kind: t.literal('swe'), settings: Settings.Settings })
export type Config = t.TypeOf<typeof Config>

/**
 * The registry entry.
 *
 * @category instances
 * @since 0.7.0
 */
export const entry: EnvEntry.EnvEntry = EnvEntry.make({
  kind: 'swe',
  doc: 'repository repair: fix a small TypeScript package until its tests pass, in a sandbox',
  Config,
  source: (config: Config, note) => {
    const resources = Swe.resources(config.settings)
    note(Swe.describeSandbox(resources))
    return Swe.source(config.settings, resources)
  },
  hasExpert: true,
  label: (config: Config) => Settings.spec(Settings.resolve(config.settings)).name,
  cli: [
    {
      name: 'swe',
      flags: { tier: 'text' },
      help: '--tier easy|medium|hard',
      config: (v) => ({ kind: 'swe', settings: v['tier'] === undefined ? {} : { tier: v['tier'] } })
    }
  ]
})
