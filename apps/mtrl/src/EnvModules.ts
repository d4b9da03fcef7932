/**
 * The environment kinds of the modules `MTRL_ENV_MODULES` names (comma-separated packages or
 * paths, each exporting `entry`, an `EnvEntry`), registered before the commands read the
 * registry. main.ts loads this module (and @mtrl/recipe's registry with it) only when the
 * variable names a module.
 */
import type { EnvEntry } from '@mtrl/core'
import { EnvConfig } from '@mtrl/recipe'
import { pathToFileURL } from 'node:url'

export const register = async (specifiers: ReadonlyArray<string>): Promise<void> => {
  for (const specifier of specifiers) {
    const path = specifier.trim()
    const loaded = (await import(path.startsWith('.') || path.startsWith('/') ? pathToFileURL(path).href : path)) as { readonly entry?: EnvEntry.EnvEntry }
    if (loaded.entry === undefined) throw new Error(`MTRL_ENV_MODULES: ${path} exports no "entry"`)
    EnvConfig.register(loaded.entry)
  }
}
