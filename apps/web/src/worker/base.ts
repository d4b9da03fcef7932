/**
 * The shipped pretrained base (`models/base` of the repository, issue 40) in the worker's file
 * system: the build bundles its three files as assets, and a recipe whose model is
 * `{ "kind": "base", "path": "/models/base" }` gets them fetched once, before its run starts.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
// the shipped base's files, bundled as assets (files of the workspace, not packages)
// eslint-disable-next-line @nx/enforce-module-boundaries
import configUrl from '../../../../models/base/config.json?url'
// eslint-disable-next-line @nx/enforce-module-boundaries
import weightsUrl from '../../../../models/base/model.safetensors?url'
// eslint-disable-next-line @nx/enforce-module-boundaries
import tokenizerUrl from '../../../../models/base/tokenizer.json?url'
import { shippedBasePath } from '../ui/recipes.js'

const files: ReadonlyArray<readonly [string, string]> = [
  ['config.json', configUrl],
  ['model.safetensors', weightsUrl],
  ['tokenizer.json', tokenizerUrl]
]

/** Whether a recipe's model is the shipped base. */
export const usesShippedBase = (model: unknown): boolean =>
  typeof model === 'object' &&
  model !== null &&
  (model as Record<string, unknown>)['kind'] === 'base' &&
  (model as Record<string, unknown>)['path'] === shippedBasePath

/** Writes the shipped base's files to {@link shippedBasePath} unless they are there; fails naming a file the server did not give. */
export const ensureShippedBase = async (): Promise<void> => {
  if (files.every(([name]) => existsSync(join(shippedBasePath, name)))) return
  const fetched = await Promise.all(
    files.map(async ([name, url]) => {
      const response = await fetch(url)
      if (!response.ok) throw new Error(`the shipped base: ${name} (${url}): HTTP ${response.status}`)
      return [name, new Uint8Array(await response.arrayBuffer())] as const
    })
  )
  mkdirSync(shippedBasePath, { recursive: true })
  for (const [name, bytes] of fetched) writeFileSync(join(shippedBasePath, name), bytes)
}
