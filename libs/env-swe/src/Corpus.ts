/**
 * The seed projects: small, realistic JavaScript projects, each with tests for Node's built-in
 * test runner (`node:test`). They are the originals into which bugs are injected. The files live
 * in `corpus/<project>/` and are bundled into the build by `scripts/corpus.mjs`. The default
 * corpus (`projects`) is CommonJS; the ES-module projects (`modules`, issue 55: `"type":
 * "module"`, mixed with CommonJS files as Node allows) are taken when named in `projects` of the
 * settings, so the default corpus's tasks stay what they were.
 *
 * @since 0.1.0
 */
import { corpusData } from './internal/corpusData.js'

/**
 * A seed project: `files` maps a relative path to its text; `sources` are the mutable files
 * (`src/*.js`), `tests` the test files (`test/*.test.js`).
 *
 * @category models
 * @since 0.1.0
 */
export interface Project {
  readonly name: string
  readonly description: string
  readonly files: Readonly<Record<string, string>>
  readonly sources: ReadonlyArray<string>
  readonly tests: ReadonlyArray<string>
  /** Whether its package is `"type": "module"` (its `.js` files are ES modules). @since 0.3.0 */
  readonly module: boolean
}

/**
 * Every seed project, CommonJS and ES modules, sorted by name.
 *
 * @category constructors
 * @since 0.3.0
 */
export const all: ReadonlyArray<Project> = corpusData.map((p) => {
  const paths = Object.keys(p.files).sort()
  const type = (JSON.parse(p.files['package.json'] ?? '{}') as { readonly type?: unknown }).type
  return {
    name: p.name,
    description: p.description,
    files: p.files,
    sources: paths.filter((f) => f.startsWith('src/') && f.endsWith('.js')),
    tests: paths.filter((f) => f.startsWith('test/') && f.endsWith('.test.js')),
    module: type === 'module'
  }
})

/**
 * The default corpus: the CommonJS projects, sorted by name.
 *
 * @category constructors
 * @since 0.1.0
 */
export const projects: ReadonlyArray<Project> = all.filter((p) => !p.module)

/**
 * The ES-module projects (taken when named in the settings' `projects`).
 *
 * @category constructors
 * @since 0.3.0
 */
export const modules: ReadonlyArray<Project> = all.filter((p) => p.module)

/**
 * A project by name.
 *
 * @category destructors
 * @since 0.1.0
 */
export const byName = (name: string): Project | undefined => all.find((p) => p.name === name)

/**
 * A project's test files with their original sources (what `Suite.run` runs).
 *
 * @category destructors
 * @since 0.1.0
 */
export const testSources = (p: Project): Readonly<Record<string, string>> => Object.fromEntries(p.tests.map((f) => [f, p.files[f]!]))
