/**
 * The seed projects: small, realistic JavaScript (CommonJS) projects, each with tests for
 * Node's built-in test runner (`node:test`). They are the originals into which bugs are
 * injected. The files live in `corpus/<project>/` and are bundled into the build by
 * `scripts/corpus.mjs`.
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
}

/**
 * Every seed project, sorted by name.
 *
 * @category constructors
 * @since 0.1.0
 */
export const projects: ReadonlyArray<Project> = corpusData.map((p) => {
  const paths = Object.keys(p.files).sort()
  return {
    name: p.name,
    description: p.description,
    files: p.files,
    sources: paths.filter((f) => f.startsWith('src/') && f.endsWith('.js')),
    tests: paths.filter((f) => f.startsWith('test/') && f.endsWith('.test.js'))
  }
})

/**
 * A project by name.
 *
 * @category destructors
 * @since 0.1.0
 */
export const byName = (name: string): Project | undefined => projects.find((p) => p.name === name)

/**
 * A project's test files with their original sources (what `Suite.run` runs).
 *
 * @category destructors
 * @since 0.1.0
 */
export const testSources = (p: Project): Readonly<Record<string, string>> => Object.fromEntries(p.tests.map((f) => [f, p.files[f]!]))
