/**
 * Remote environments' entry in the environment registry (`@mtrl/core` `EnvEntry`): the recipe
 * entry `{ "kind": "http", "baseUrl": ... }` (one server, `HttpEnv`) or
 * `{ "kind": "http", "servers": [...] }` (slots spread over many, dead servers retired: `Pool`).
 * Remote environments have no expert; the CLI serves them (`mtrl serve-env`) rather than names them.
 *
 * @since 0.7.0
 */
import { EnvEntry } from '@mtrl/core'
import * as t from 'io-ts'
import * as HttpEnv from './HttpEnv.js'
import * as Pool from './Pool.js'

const One = t.intersection([t.type({ kind: t.literal('http') }), HttpEnv.Options])
const { baseUrl: _baseUrl, ...clientProps } = HttpEnv.Options.types[0].props
const Many = t.intersection([t.type({ kind: t.literal('http'), servers: t.array(t.string), ...clientProps }), HttpEnv.Options.types[1]])

/**
 * One server (`baseUrl`) or many (`servers`), with the client's options.
 *
 * @category codecs
 * @since 0.7.0
 */
export const Config = t.union([One, Many])
export type Config = t.TypeOf<typeof Config>

const source = (config: Config) => {
  if ('servers' in config) {
    const { kind: _kind, servers, ...client } = config
    return Pool.source({ servers, client })
  }
  const { kind: _kind, ...options } = config
  return HttpEnv.source(options)
}

/**
 * The registry entry.
 *
 * @category instances
 * @since 0.7.0
 */
export const entry: EnvEntry.EnvEntry = EnvEntry.make({
  kind: 'http',
  doc: 'environments served over HTTP (`mtrl serve-env`, or any server of the protocol)',
  Config,
  source,
  hasExpert: false,
  label: (config: Config) => source(config).name,
  cli: []
})
