/**
 * Which environment a stage plays, as a recipe names it (`{ "kind": "textworld", ... }`), and
 * the registry of environment kinds behind it: each environment library exports one
 * `EnvEntry` (its `Registration.entry`: codec, source, expert or not, label, CLI names), the
 * built-in ones are registered here, and {@link register} adds another (a program's own
 * environment) to the recipe codec, the CLI's names and flags, and the page's runs, with no
 * edit there.
 *
 * @since 0.1.0
 */
import { Decode, type Env, type EnvEntry } from '@mtrl/core'
import { Registration as AlfWorld } from '@mtrl/env-alfworld'
import { Registration as Http } from '@mtrl/env-http'
import { Registration as Swe } from '@mtrl/env-swe'
import { Registration as TextWorld } from '@mtrl/env-textworld'
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'

/**
 * A recipe's environment entry: a registered kind and that kind's fields.
 *
 * @category models
 */
export interface EnvConfig {
  readonly kind: string
  readonly [field: string]: unknown
}

const registry = new Map<string, EnvEntry.EnvEntry>()
// the registered kinds' codecs, in order: the union below reads them when it decodes
const members: t.Mixed[] = []

const memberOf = (u: unknown): t.Mixed | undefined =>
  typeof u === 'object' && u !== null && typeof (u as { kind?: unknown }).kind === 'string' ? registry.get((u as { kind: string }).kind)?.Config : undefined

/**
 * The codec of an environment entry: the union of the registered kinds' codecs (a union, so a
 * decode error names the kinds to choose from and `Decode.decodeStrict` sees each kind's fields).
 *
 * @category codecs
 */
export const EnvConfig: t.Type<EnvConfig, unknown, unknown> = new t.UnionType<[t.Mixed, t.Mixed, ...t.Mixed[]], EnvConfig, unknown, unknown>(
  'EnvConfig',
  (u): u is EnvConfig => memberOf(u)?.is(u) === true,
  (u, c) => {
    const errors: t.Errors = []
    for (const [i, codec] of members.entries()) {
      const result = codec.validate(u, [...c, { key: String(i), type: codec, actual: u }])
      if (result._tag === 'Right') return t.success(result.right as EnvConfig)
      errors.push(...result.left)
    }
    return errors.length === 0 ? t.failure(u, c) : t.failures(errors)
  },
  (a) => memberOf(a)?.encode(a) ?? a,
  members as unknown as [t.Mixed, t.Mixed, ...t.Mixed[]]
)

/**
 * Adds an environment kind (its library's `EnvEntry`); a kind registered twice is an error.
 *
 * @category constructors
 */
export const register = (entry: EnvEntry.EnvEntry): void => {
  if (registry.has(entry.kind)) throw new Error(`environment kind "${entry.kind}" is already registered`)
  registry.set(entry.kind, entry)
  members.push(entry.Config)
}

for (const entry of [TextWorld.entry, AlfWorld.entry, Swe.entry, Http.entry]) register(entry)

/** The registered kinds, in the order they were registered. */
export const entries = (): ReadonlyArray<EnvEntry.EnvEntry> => [...registry.values()]

const entryOf = (config: EnvConfig): EnvEntry.EnvEntry => {
  const entry = registry.get(config.kind)
  if (entry === undefined) throw new Error(`unknown environment kind "${config.kind}" (registered: ${[...registry.keys()].join(', ')})`)
  return entry
}

/**
 * The environment source of a configuration (one env per episode slot, the expert, task types).
 * `note` is handed what people should know before it starts (the sandbox an SWE environment uses).
 *
 * @category constructors
 */
export const source = (config: EnvConfig, note: (text: string) => void = () => undefined): Env.EnvSource => entryOf(config).source(config, note)

/** Whether the environment has an expert (to write SFT demonstrations); remote ones have none. */
export const hasExpert = (config: EnvConfig): boolean => entryOf(config).hasExpert

/** A short label for tables: `textworld/w2-o3-q4`, `alfworld/valid-unseen`, ... (builds nothing heavy). */
export const label = (config: EnvConfig): string => entryOf(config).label(config)

/**
 * The source of an environment entry sent as JSON (a queue job's, a rollout thread's), or why it
 * does not decode (`subject` names what was decoded).
 *
 * @category constructors
 */
export const decodeSource =
  (subject: string, note?: (text: string) => void) =>
  (spec: unknown): E.Either<string, Env.EnvSource> =>
    E.bimap(Decode.formatError, (config: EnvConfig) => source(config, note))(Decode.decode(subject, EnvConfig)(spec))
