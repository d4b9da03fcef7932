/**
 * Each package's manifest lists exactly the `@mtrl/*` packages it imports: a package its sources
 * import is a dependency, a dependency is imported by its sources, and a package only its tests,
 * benchmarks or examples import is a dev dependency (or a dependency). A manifest that says more
 * installs what nobody uses; one that says less breaks when the package is installed alone.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = resolve(__dirname, '..', '..')

/** The `@mtrl/*` packages the `.ts`/`.mts`/`.mjs` files under `dir` import (static, dynamic, type-only, re-exports). */
const importsUnder = (dir: string): Set<string> => {
  const out = new Set<string>()
  if (!existsSync(dir)) return out
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name)
      if (name === 'node_modules' || name === 'dist') continue
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.(ts|mts|mjs|tsx)$/.test(name))
        for (const line of readFileSync(path, 'utf8').split('\n'))
          // code, not comments (TSDoc examples name packages a reader would import)
          if (!/^\s*(\*|\/\/|\/\*)/.test(line)) for (const m of line.matchAll(/(?:from|import\(|import)\s*['"](@mtrl\/[a-z0-9-]+)/g)) out.add(m[1]!)
    }
  }
  walk(dir)
  return out
}

interface Manifest {
  readonly name: string
  readonly dependencies?: Record<string, string>
  readonly devDependencies?: Record<string, string>
  readonly peerDependencies?: Record<string, string>
}

const packages = ['libs', 'apps'].flatMap((group) =>
  readdirSync(join(root, group))
    .map((name) => join(root, group, name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
)

const mtrl = (deps: Record<string, string> | undefined): Set<string> => new Set(Object.keys(deps ?? {}).filter((d) => d.startsWith('@mtrl/')))

describe('package manifests', () => {
  it('finds the packages', () => {
    expect(packages.length).toBeGreaterThan(15)
  })
  for (const dir of packages) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest
    it(`${manifest.name} lists exactly the @mtrl packages it imports`, () => {
      const runtime = importsUnder(join(dir, 'src'))
      runtime.delete(manifest.name)
      const others = new Set(
        [...['test', 'bench', 'scripts', 'bin'].flatMap((d) => [...importsUnder(join(dir, d))])].filter((p) => p !== manifest.name && !runtime.has(p))
      )
      const deps = new Set([...mtrl(manifest.dependencies), ...mtrl(manifest.peerDependencies)])
      const dev = mtrl(manifest.devDependencies)
      expect({ missing: [...runtime].filter((p) => !deps.has(p)).sort() }, 'imported by src/ but not a dependency').toEqual({ missing: [] })
      expect({ unused: [...deps].filter((p) => !runtime.has(p)).sort() }, 'a dependency src/ does not import').toEqual({ unused: [] })
      expect(
        { missing: [...others].filter((p) => !dev.has(p) && !deps.has(p)).sort() },
        'imported by tests, benchmarks or scripts but in no dependency list'
      ).toEqual({ missing: [] })
      expect({ unused: [...dev].filter((p) => !others.has(p) && !runtime.has(p)).sort() }, 'a dev dependency nothing imports').toEqual({ unused: [] })
    })
  }
  it("docs/architecture.md's table of imports is every package's manifest", () => {
    const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8')
    const table = new Map(
      [...doc.matchAll(/^\| `([@a-z/0-9-]+)` \| ((?:`[a-z0-9-]+`(?:, )?)+|\(none\)) \|$/gm)].map((m) => [
        m[1]!,
        m[2] === '(none)' ? [] : [...m[2]!.matchAll(/`([a-z0-9-]+)`/g)].map((x) => `@mtrl/${x[1]}`)
      ])
    )
    const manifests = new Map(
      packages.map((dir) => {
        const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest
        return [manifest.name, [...mtrl(manifest.dependencies)].sort()]
      })
    )
    expect(Object.fromEntries([...table].sort())).toEqual(Object.fromEntries([...manifests].sort()))
  })
})
