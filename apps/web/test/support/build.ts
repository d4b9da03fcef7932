/**
 * Vitest's global setup for the browser tests: builds the page once, before any test file runs,
 * into a folder of its own that every file's `serve` then serves (page.test.ts and
 * webgpu.test.ts used to build it each; one build is what both test). Nothing is built where
 * no Chromium runs the tests (the executables Services.available('chromium') looks for: the
 * global setup runs outside the tests' resolution of @mtrl/* to sources); a `serve` without the
 * shared build builds its own.
 */
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'vite'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder the page was built into, or '' where it was not built. */
    readonly webDist: string
  }
}

const root = fileURLToPath(new URL('../..', import.meta.url))

const runnable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
const hasChromium = (): boolean =>
  runnable('/usr/bin/chromium') || (process.env['PATH'] ?? '').split(delimiter).some((dir) => dir !== '' && runnable(join(dir, 'chromium')))

export default async function setup(project: TestProject): Promise<() => void> {
  if (!hasChromium()) {
    project.provide('webDist', '')
    return () => undefined
  }
  const outDir = mkdtempSync(join(tmpdir(), 'mtrl-web-dist-'))
  await build({ root, logLevel: 'error', build: { outDir } })
  project.provide('webDist', outDir)
  return () => rmSync(outDir, { recursive: true, force: true })
}
