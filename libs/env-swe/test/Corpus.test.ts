import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs build script without types
import { render } from '../scripts/corpus.mjs'
import * as _ from '../src/Corpus.js'
import { maskSource } from '../src/internal/mask.js'
import * as Pool from '../src/Pool.js'
import { defaultLimits } from '../src/Sandbox.js'
import * as Suite from '../src/Suite.js'
import * as Workspace from '../src/Workspace.js'
import { readFileSync } from 'node:fs'

const pool = Pool.make(2)
afterAll(() => pool.dispose())

describe('Corpus', () => {
  it('has at least 20 projects, each with sources and tests, several with two source files', () => {
    expect(_.projects.length).toBeGreaterThanOrEqual(20)
    for (const p of _.projects) {
      expect(p.sources.length, p.name).toBeGreaterThan(0)
      expect(p.tests.length, p.name).toBeGreaterThan(0)
      expect(p.description.length, p.name).toBeGreaterThan(10)
    }
    expect(_.projects.filter((p) => p.sources.length >= 2).length).toBeGreaterThanOrEqual(5)
  })

  it('the bundled data matches corpus/ (run `npm run corpus` after editing it)', () => {
    expect(readFileSync(new URL('../src/internal/corpusData.ts', import.meta.url), 'utf8')).toBe((render as () => string)())
  })

  it('sources avoid what the mutation scanner does not understand: template and regex literals', () => {
    for (const p of _.all) for (const f of p.sources) expect(maskSource(p.files[f]!), `${p.name}/${f}`).not.toMatch(/`|[=(,]\s*\/[^/*]/)
  })

  it('test names are unique within each file', () => {
    for (const p of _.all) {
      for (const f of p.tests) {
        const names = [...p.files[f]!.matchAll(/^test\('([^']+)'/gm)].map((m) => m[1])
        expect(new Set(names).size, `${p.name}/${f}`).toBe(names.length)
      }
    }
  })

  it('every original project passes all of its tests in the sandbox', async () => {
    const results = await Promise.all(
      _.projects.map(async (p) => {
        const ws = Workspace.make(p.files)
        try {
          const r = await pool.run(Suite.run({ limits: defaultLimits })(ws, _.testSources(p)))()
          if (E.isLeft(r)) return `${p.name}: sandbox failed`
          const declared = p.tests.reduce((n, f) => n + [...p.files[f]!.matchAll(/^test\(/gm)].length, 0)
          const failing = r.right.outcomes.filter((o) => !o.passed).map((o) => o.name)
          return r.right.outcomes.length === declared && failing.length === 0
            ? 'ok'
            : `${p.name}: ${r.right.outcomes.length}/${declared} reported, failing ${failing.join(', ')}`
        } finally {
          ws.dispose()
        }
      })
    )
    expect(results.filter((x) => x !== 'ok')).toEqual([])
  })
})
