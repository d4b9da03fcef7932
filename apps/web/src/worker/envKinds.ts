/**
 * The environment kinds the page offers: every registered kind with a `page` entry (`@mtrl/recipe`
 * `EnvConfig.entries()`), sent to the page when the worker is ready. A kind registered in the
 * worker appears in the page's pickers with its presets, with no edit in the page.
 */
import type { EnvEntry } from '@mtrl/core'
import type { EnvKind } from './protocol.js'

export const envKinds = (entries: ReadonlyArray<EnvEntry.EnvEntry>): ReadonlyArray<EnvKind> =>
  entries.flatMap((entry) => (entry.page === undefined ? [] : [{ kind: entry.kind, label: entry.page.label, presets: entry.page.presets }]))
