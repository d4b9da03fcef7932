/**
 * Which environment a stage plays, as a recipe names it, and its source (`Env.EnvSource`: one
 * environment per episode slot, the expert that writes SFT demonstrations, task types).
 *
 * @since 0.1.0
 */
import type { Env } from '@mtrl/core'
import { AlfWorld } from '@mtrl/env-alfworld'
import { HttpEnv, Pool } from '@mtrl/env-http'
import { Settings as SweSettings, Swe } from '@mtrl/env-swe'
import { Settings as TwSettings, TextWorld } from '@mtrl/env-textworld'
import * as t from 'io-ts'

/** A TextWorld game: `"w2-o3-q4"`, `"tw-simple-dense-detailed"`, or the settings object. */
const TextWorldConfig = t.intersection([
  t.type({ kind: t.literal('textworld'), settings: t.union([TwSettings.SettingsFromString, TwSettings.Settings]) }),
  t.partial({ admissible: t.boolean, reward: t.union([t.literal('score'), t.literal('intermediate')]) })
])
const AlfWorldConfig = t.type({ kind: t.literal('alfworld'), settings: AlfWorld.Settings })
const SweConfig = t.type({ kind: t.literal('swe'), settings: SweSettings.Settings })
const HttpConfig = t.intersection([t.type({ kind: t.literal('http') }), HttpEnv.Options])
/** Many servers of one environment: slots spread over them, dead servers retired (`Pool`). */
const { baseUrl: _baseUrl, ...clientProps } = HttpEnv.Options.types[0].props
const HttpServersConfig = t.intersection([t.type({ kind: t.literal('http'), servers: t.array(t.string), ...clientProps }), HttpEnv.Options.types[1]])

export const EnvConfig = t.union([TextWorldConfig, AlfWorldConfig, SweConfig, HttpConfig, HttpServersConfig])
export type EnvConfig = t.TypeOf<typeof EnvConfig>

/**
 * The environment source of a configuration (one env per episode slot, the expert, task types).
 * `note` is handed what people should know before it starts (the sandbox an SWE environment uses).
 *
 * @category constructors
 */
export const source = (config: EnvConfig, note: (text: string) => void = () => undefined): Env.EnvSource => {
  switch (config.kind) {
    case 'textworld':
      return TextWorld.source(config.settings, {
        ...(config.admissible === undefined ? {} : { admissible: config.admissible }),
        ...(config.reward === undefined ? {} : { reward: config.reward })
      })
    case 'alfworld':
      return AlfWorld.source(config.settings)
    case 'swe': {
      const resources = Swe.resources(config.settings)
      note(Swe.describeSandbox(resources))
      return Swe.source(config.settings, resources)
    }
    case 'http': {
      if ('servers' in config) {
        const { kind: _kind, servers, ...client } = config
        return Pool.source({ servers, client })
      }
      const { kind: _kind, ...options } = config
      return HttpEnv.source(options)
    }
  }
}

/** Whether the environment has an expert (to write SFT demonstrations); remote ones have none. */
export const hasExpert = (config: EnvConfig): boolean => config.kind !== 'http'

/** A short label for tables: `textworld/w2-o3-q4`, `alfworld/valid-unseen`, ... (builds nothing heavy). */
export const label = (config: EnvConfig): string => (config.kind === 'swe' ? SweSettings.spec(SweSettings.resolve(config.settings)).name : source(config).name)
