/**
 * Which environment a stage plays, as a recipe names it, and what the app needs of it: one
 * environment per episode slot, and the expert that writes SFT demonstrations.
 */
import type { Env } from '@mtrl/core'
import { AlfWorld, Expert as AlfExpert } from '@mtrl/env-alfworld'
import { HttpEnv, Pool } from '@mtrl/env-http'
import { Expert as SweExpert, Settings as SweSettings, Swe } from '@mtrl/env-swe'
import { Settings as TwSettings, TextWorld } from '@mtrl/env-textworld'
import * as O from 'fp-ts/lib/Option.js'
import * as t from 'io-ts'

/** A TextWorld game: `"w2-o3-q4"`, `"tw-simple-dense-detailed"`, or the settings object. */
const TextWorldConfig = t.intersection([
  t.type({ kind: t.literal('textworld'), settings: t.union([TwSettings.SettingsFromString, TwSettings.Settings]) }),
  t.partial({ admissible: t.boolean })
])
const AlfWorldConfig = t.type({ kind: t.literal('alfworld'), settings: AlfWorld.Settings })
const SweConfig = t.type({ kind: t.literal('swe'), settings: SweSettings.Settings })
const HttpConfig = t.intersection([t.type({ kind: t.literal('http') }), HttpEnv.Options])
/** Many servers of one environment: slots spread over them, dead servers retired (`Pool`). */
const { baseUrl: _baseUrl, ...clientProps } = HttpEnv.Options.types[0].props
const HttpServersConfig = t.intersection([t.type({ kind: t.literal('http'), servers: t.array(t.string), ...clientProps }), HttpEnv.Options.types[1]])

export const EnvConfig = t.union([TextWorldConfig, AlfWorldConfig, SweConfig, HttpConfig, HttpServersConfig])
export type EnvConfig = t.TypeOf<typeof EnvConfig>

/** What a pipeline uses of an environment configuration. */
export interface EnvHandle {
  readonly name: string
  readonly maxTurns: number
  /** A fresh environment (one per episode slot). */
  readonly make: () => Env.Env
  /** The expert's plan from the current state of an env made by `make` (after reset). */
  readonly expertPlan: (env: Env.Env) => Promise<ReadonlyArray<string>>
  readonly dispose: () => void
  /** The task type an episode seed plays, for environments with task types. */
  readonly taskType?: (seed: number) => string
}

const noExpert = (name: string) => async (): Promise<ReadonlyArray<string>> => {
  throw new Error(`${name} has no expert: SFT on it needs demonstrations from a JSONL file`)
}

/** Builds the handle of a configuration. */
export const handle = (config: EnvConfig): EnvHandle => {
  switch (config.kind) {
    case 'textworld': {
      const settings = config.settings
      const spec = TextWorld.spec(settings)
      const options = config.admissible === undefined ? {} : { admissible: config.admissible }
      return {
        name: spec.name,
        maxTurns: spec.maxTurns,
        make: () => TextWorld.make(settings, options),
        expertPlan: async (env) => O.getOrElse((): ReadonlyArray<string> => [])(TextWorld.expertPlan(env as TextWorld.TextWorldEnv)),
        dispose: () => undefined
      }
    }
    case 'alfworld': {
      const spec = AlfWorld.spec(config.settings)
      return {
        name: spec.name,
        maxTurns: spec.maxTurns,
        make: () => AlfWorld.make(config.settings),
        expertPlan: async (env) => O.getOrElse((): ReadonlyArray<string> => [])(O.chain(AlfExpert.plan)((env as AlfWorld.AlfWorldEnv).state())),
        dispose: () => undefined,
        taskType: (seed) => {
          const types = AlfWorld.resolve(config.settings).taskTypes
          return types[((seed % types.length) + types.length) % types.length]!
        }
      }
    }
    case 'swe': {
      const resources = Swe.resources(config.settings)
      process.stderr.write(`${Swe.describeSandbox(resources)}\n`)
      const spec = SweSettings.spec(resources.settings)
      return {
        name: spec.name,
        maxTurns: spec.maxTurns,
        make: () => Swe.make(config.settings, resources),
        expertPlan: async (env) => {
          const task = (env as Swe.SweEnv).task()
          return task === undefined ? [] : SweExpert.plan(task)
        },
        dispose: () => resources.dispose()
      }
    }
    case 'http': {
      if ('servers' in config) {
        const { kind: _kind, servers, ...client } = config
        const pool = Pool.make({ servers, client })
        return { name: pool.spec.name, maxTurns: pool.spec.maxTurns, make: pool.make, expertPlan: noExpert(pool.spec.name), dispose: () => undefined }
      }
      const { kind: _kind, ...options } = config
      const spec = HttpEnv.specOf(options)
      const name = spec.name
      return {
        name,
        maxTurns: spec.maxTurns,
        make: () => HttpEnv.make(options),
        expertPlan: noExpert(name),
        dispose: () => undefined
      }
    }
  }
}

/** A short label for tables: `textworld/w2-o3-q4`, `alfworld/valid-unseen`, ... (builds nothing heavy). */
export const label = (config: EnvConfig): string =>
  config.kind === 'swe' ? SweSettings.spec(SweSettings.resolve(config.settings)).name : handle(config).name
