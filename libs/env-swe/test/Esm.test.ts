/**
 * Issue 55: repository code may be ES modules (`.mjs`, or `.js` under `"type": "module"`) mixed
 * with CommonJS as Node allows, in the same Compartment and guards as CommonJS code; test files
 * may be ES modules too. What an ES module cannot do is what CommonJS code cannot: reach
 * `process`, Node's other built-ins, `import()` or a path outside the repository.
 */
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import type { Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import * as Corpus from '../src/Corpus.js'
import * as Expert from '../src/Expert.js'
import * as Esm from '../src/internal/esm.js'
import * as Suite from '../src/Suite.js'
import * as Swe from '../src/Swe.js'
import * as Workspace from '../src/Workspace.js'
import { tight } from './helpers.js'

const run = async (files: Readonly<Record<string, string>>, testFile: string) => {
  const ws = Workspace.make(files)
  try {
    const r = await Suite.run({ limits: { ...tight, timeoutMs: 8000 } })(ws, { [testFile]: files[testFile]! })()
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const run = r.right.runs[0]!
    return { outcomes: r.right.outcomes.map((o) => [o.name, o.passed, o.message] as const), stderr: run.result.stderr, report: run.report }
  } finally {
    ws.dispose()
  }
}

const esmTest = (body: string): string =>
  [
    "import test from 'node:test'",
    "import assert from 'node:assert/strict'",
    "import * as a from '../src/a.js'",
    body,
    "test('fails', () => assert.equal(1, 2))"
  ].join('\n')

describe('ES modules', () => {
  it('an ES-module repository: imports of ES modules (live bindings, re-exports), CommonJS, JSON and built-ins; import.meta; an ES-module test file', async () => {
    const files = {
      'package.json': '{ "type": "module" }',
      'src/a.js': [
        "import { add, counter, bump } from './b.js'",
        "import legacy, { one } from './legacy.cjs'",
        "import data from './data.json'",
        "import { format } from 'node:util'",
        "export * from './b.js'",
        'export const twice = (x) => add(x, x) + legacy.one - one',
        'export const meta = () => import.meta.url',
        "export const shown = () => format('%s-%d', data.name, counter)",
        'export const live = () => { const before = counter; bump(); return [before, counter] }',
        'export default 42'
      ].join('\n'),
      'src/b.js': 'export let counter = 0\nexport const bump = () => { counter += 1 }\nexport const add = (x, y) => x + y\n',
      'src/legacy.cjs': "'use strict'\nmodule.exports = { one: 1 }\n",
      'src/data.json': '{ "name": "d" }',
      'test/a.test.js': esmTest(
        [
          "test('works', () => {",
          '  assert.equal(a.twice(21), 42)',
          '  assert.equal(a.default, 42)',
          "  assert.equal(a.meta(), 'file:///src/a.js')",
          "  assert.equal(a.shown(), 'd-0')",
          '  assert.deepEqual(a.live(), [0, 1])',
          '  assert.equal(a.counter, 1)',
          '  assert.equal(typeof Date.now(), "number")',
          '})'
        ].join('\n')
      )
    }
    const r = await run(files, 'test/a.test.js')
    expect(r.outcomes).toEqual([
      ['works', true, ''],
      ['fails', false, expect.stringContaining('Expected values to be strictly equal')]
    ])
  })

  it('a .mjs file in a CommonJS repository: required from a CommonJS test (as Node 22 allows), importing CommonJS', async () => {
    const files = {
      'src/m.mjs': "import helper from './helper.js'\nexport const check = () => helper.value === 7\n",
      'src/helper.js': "'use strict'\nmodule.exports = { value: 7 }\n",
      'test/m.test.js': [
        "'use strict'",
        "const test = require('node:test')",
        "const assert = require('node:assert/strict')",
        "const m = require('../src/m.mjs')",
        "test('works', () => assert.equal(m.check(), true))"
      ].join('\n')
    }
    expect((await run(files, 'test/m.test.js')).outcomes).toEqual([['works', true, '']])
  })

  it('what an ES module cannot do: process, other built-ins, import(), paths outside; a syntax error names its file', async () => {
    const base = { 'package.json': '{ "type": "module" }', 'test/a.test.js': esmTest("test('loads', () => assert.equal(a.ok(), true))") }
    const withA = (code: string) => ({ ...base, 'src/a.js': code })
    const noProcess = await run(withA("export const ok = () => typeof process === 'undefined' && typeof require === 'undefined'"), 'test/a.test.js')
    expect(noProcess.outcomes[0]).toEqual(['loads', true, ''])
    const fsImport = await run(withA("import fs from 'node:fs'\nexport const ok = () => true"), 'test/a.test.js')
    expect(E.isLeft(fsImport.report)).toBe(true)
    expect(fsImport.stderr).toContain("Cannot find module 'node:fs': the code under test can require the repository's own files")
    const dynamic = await run(withA("export const ok = () => import('./b.js')"), 'test/a.test.js')
    expect(E.isLeft(dynamic.report)).toBe(true)
    expect(dynamic.stderr).toContain('src/a.js: dynamic import() is not available to the code under test; use a static import')
    const outside = await run(withA("import x from '../../../../etc/passwd'\nexport const ok = () => true"), 'test/a.test.js')
    expect(outside.stderr).toContain("Cannot find module '../../../../etc/passwd' (from src)")
    const broken = await run(withA('export const = 1'), 'test/a.test.js')
    expect(broken.stderr).toContain('Error transforming source in "src/a.js": Unexpected token (1:13)')
    const strings = await run(withA("export const ok = () => 'import(x) <!-- -->'.length === 18"), 'test/a.test.js')
    expect(strings.outcomes[0]).toEqual(['loads', true, ''])
    // A package.json that is a symlink (here to a host file saying "module") is not read: the .js file stays CommonJS.
    const host = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-esm-'))
    try {
      fs.writeFileSync(path.join(host, 'package.json'), '{ "type": "module" }')
      const ws = Workspace.make({ 'src/a.js': "'use strict'\nmodule.exports = { ok: () => true }\n" })
      fs.symlinkSync(path.join(host, 'package.json'), path.join(ws.repoDir, 'package.json'))
      expect(Object.keys(await Esm.modulesOf(ws.repoDir))).toEqual([])
      ws.dispose()
    } finally {
      fs.rmSync(host, { recursive: true, force: true })
    }
    const tla = await run(withA('await null\nexport const ok = () => true'), 'test/a.test.js')
    expect(E.isLeft(tla.report)).toBe(true)
    expect(tla.stderr).toContain('SyntaxError: await is only valid in async functions and the top level bodies of modules')
  })
})

describe('ES-module corpus tasks', () => {
  const settings = { tier: 'easy' as const, projects: Corpus.modules.map((p) => p.name), timeoutMs: 8000, memoryMb: 256 }
  const shared = Swe.resources(settings, 2)
  afterAll(() => shared.dispose())

  it('the ES-module projects are outside the default corpus, and pass their own tests', async () => {
    expect(Corpus.modules.map((p) => p.name)).toEqual(['temperature'])
    expect(Corpus.projects.some((p) => p.module)).toBe(false)
    const p = Corpus.byName('temperature')!
    const verdict = await shared.generator.verify(p, [])
    expect(verdict).toMatchObject({ _tag: 'AllPass', names: expect.arrayContaining(['test/temperature.test.js > gives the range of the readings']) })
  })

  it('run and are rewarded: the unfixed code pays its share of passing tests, and the expert wins (hard tier: two ES modules mutated)', async () => {
    for (const tier of ['hard'] as const) {
      const env = Swe.make({ ...settings, tier }, shared)
      const start = await env.reset(1)()
      if (E.isLeft(start)) expect.fail(JSON.stringify(start.left))
      const task = env.task()!
      expect(task.project.name).toBe('temperature')
      expect(task.failing.length).toBeGreaterThan(0)
      const plan = Expert.plan(task)
      let last: Env.StepResult | undefined
      for (const a of plan) {
        const r = await env.step(a)()
        if (E.isLeft(r)) expect.fail(JSON.stringify(r.left))
        last = r.right
      }
      expect(last?.won, tier).toBe(true)
      expect(last?.reward).toBe(1)
      await env.close()()
      const unfixed = Swe.make({ ...settings, tier }, shared)
      await unfixed.reset(1)()
      const submitted = await unfixed.step('submit')()
      if (E.isLeft(submitted)) expect.fail(JSON.stringify(submitted.left))
      expect(submitted.right.reward).toBeCloseTo((task.expected.length - task.failing.length) / task.expected.length, 10)
      await unfixed.close()()
    }
  })
})
