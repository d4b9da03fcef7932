/**
 * What an environment library registers so that recipes, the CLI and the page can use it without
 * edits there: the codec of its recipe entry (`{ "kind": "textworld", ... }`), how that entry
 * becomes an `Env.EnvSource`, whether it has an expert, a short label, the names the CLI
 * offers with their flags (`mtrl play cooking --rewards dense`) and the page's picker data.
 * `@mtrl/recipe`'s `EnvConfig` keeps the registry.
 *
 * @since 0.7.0
 */
import type * as t from 'io-ts'
import type { EnvSource } from './Env.js'

/**
 * A command-line flag an environment takes: a string, a non-negative integer or a switch.
 *
 * @category models
 * @since 0.7.0
 */
export type Flag = 'text' | 'int' | 'bool'

/**
 * The values of the command line's flags (undefined: not given); an environment reads its own.
 *
 * @category models
 * @since 0.7.0
 */
export type FlagValues = Readonly<Record<string, string | number | boolean | ReadonlyArray<string> | undefined>>

/**
 * A name the CLI offers (`mtrl play NAME`): its flags, one line of help, and the recipe entry
 * its flags stand for (decoded with the entry's codec afterwards, so a bad value is named).
 *
 * @category models
 * @since 0.7.0
 */
export interface CliName {
  readonly name: string
  readonly flags: Readonly<Record<string, Flag>>
  /** The flags and their values, e.g. `--tier easy|medium|hard`. */
  readonly help: string
  readonly config: (values: FlagValues) => unknown
}

/**
 * What the browser page offers of a kind: a label for its picker and named presets (each a whole
 * recipe entry).
 *
 * @category models
 * @since 0.7.0
 */
export interface PageEntry {
  readonly label: string
  readonly presets: ReadonlyArray<{ readonly name: string; readonly config: { readonly kind: string; readonly [field: string]: unknown } }>
}

/**
 * One environment kind.
 *
 * @category models
 * @since 0.7.0
 */
export interface EnvEntry<C extends { readonly kind: string } = { readonly kind: string }> {
  /** The recipe's `kind`. */
  readonly kind: string
  /** One line: what it is. */
  readonly doc: string
  /** The whole recipe entry, `kind` included. */
  readonly Config: t.Type<C, unknown, unknown>
  /** Its environments; `note` is handed what people should know before it starts (a sandbox's limits). */
  readonly source: (config: C, note: (text: string) => void) => EnvSource
  /** Whether it has an expert that writes SFT demonstrations. */
  readonly hasExpert: boolean
  /** A short label for tables, cheap (builds nothing heavy): `textworld/w2-o3-q4`. */
  readonly label: (config: C) => string
  /** The names the CLI offers for it (none: recipes only). */
  readonly cli: ReadonlyArray<CliName>
  /** What the page offers (absent: not offered there, e.g. a kind that needs Node's processes or sockets). */
  readonly page?: PageEntry
}

/**
 * An entry with its config type erased, for a registry of many kinds (the registry decodes a
 * config with the entry's own codec before it calls `source` or `label`).
 *
 * @category constructors
 * @since 0.7.0
 */
export const make = <C extends { readonly kind: string }>(entry: EnvEntry<C>): EnvEntry => entry as unknown as EnvEntry
