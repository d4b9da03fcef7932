#!/usr/bin/env node
// The mtrl command. Inside the workspace it runs the TypeScript sources directly (tsx, with
// sibling libs resolved to their sources through the "@mtrl/source" export condition); an
// installed package runs its built dist/.
import { existsSync } from 'node:fs'
import { register } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const source = join(here, '..', 'src', 'main.ts')

if (existsSync(source)) {
  register(pathToFileURL(join(here, 'source-conditions.mjs')))
  const { register: registerTsx } = await import('tsx/esm/api')
  registerTsx()
  await import(pathToFileURL(source).href)
} else {
  await import(pathToFileURL(join(here, '..', 'dist', 'main.js')).href)
}
