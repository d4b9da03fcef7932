/**
 * The Compartment as ordinary code uses it (issue 41): the globals and built-ins a repository
 * needs, its console output kept per test, repository-relative paths, and memory; and the same
 * surface as an attacker uses it: timers that try to outlive the run, built-ins used to reach the
 * host, floods of output, memory just under and over the limit. Each attack leaves a failing test
 * failing: at worst the file's report is rejected.
 */
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as Sandbox from '../src/Sandbox.js'
import * as Suite from '../src/Suite.js'
import * as Workspace from '../src/Workspace.js'
import { tight } from './helpers.js'

const expected = ['test/m.test.js > passes', 'test/m.test.js > fails']

/** A one-file suite over `src/m.js`: `passes` checks `m.check()` returns true, `fails` always fails. */
const suite = (body = ''): string =>
  [
    "'use strict'",
    "const test = require('node:test')",
    "const assert = require('node:assert/strict')",
    "const m = require('../src/m.js')",
    body,
    "test('passes', async () => { assert.equal(await m.check(), true) })",
    "test('fails', () => { assert.equal(1, 2) })"
  ].join('\n')

const run = async (source: string, testSource: string = suite(), limits: Sandbox.Limits = tight) => {
  const ws = Workspace.make({ 'src/m.js': source, 'test/m.test.js': testSource })
  try {
    const r = await Suite.run({ limits })(ws, { 'test/m.test.js': testSource })()
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    const file = r.right.runs[0]!
    return { ...r.right, file, score: Suite.score(expected, r.right.outcomes), repoDir: ws.repoDir }
  } finally {
    ws.dispose()
  }
}

/** `check()` returns true if every probe holds, else the failing ones (so the test message says which). */
const checks = (probes: Readonly<Record<string, string>>): string =>
  [
    "'use strict'",
    'const probes = {',
    ...Object.entries(probes).map(([k, v]) => `  ${JSON.stringify(k)}: async () => (${v}),`),
    '}',
    'module.exports = { check: async () => {',
    '  const failed = []',
    '  for (const [k, f] of Object.entries(probes)) { try { if ((await f()) !== true) failed.push(k) } catch (e) { failed.push(k + ": " + e.message) } }',
    '  return failed.length === 0 ? true : failed.join("; ")',
    '} }'
  ].join('\n')

const accepted = (r: Awaited<ReturnType<typeof run>>) =>
  expect(r.file.report).toEqual(
    E.right([expect.objectContaining({ name: 'passes', status: 'pass' }), expect.objectContaining({ name: 'fails', status: 'fail' })])
  )

describe('the Compartment runs ordinary code', () => {
  it('has timers, typed arrays, Intl, WeakRef, URL, TextEncoder, structuredClone and the safe built-ins', async () => {
    const r = await run(
      checks({
        timers: "await new Promise((resolve) => setTimeout(resolve, 20, 'x')).then(() => true)",
        interval: 'await new Promise((resolve) => { let n = 0; const h = setInterval(() => { if (++n === 3) { clearInterval(h); resolve(true) } }, 1) })',
        immediate: 'await new Promise((resolve) => setImmediate(() => queueMicrotask(() => resolve(true))))',
        unref: 'typeof setTimeout(() => 0, 1).unref().hasRef === "function"',
        typed: 'new Float64Array([1.5]).length === 1 && new Float32Array(2).length === 2 && new BigInt64Array(1).length === 1',
        intl: "new Intl.NumberFormat('en-US').format(1234.5) === '1,234.5'",
        weakref: 'new WeakRef({}).deref() !== null && typeof FinalizationRegistry === "function"',
        url: "new URL('https://x.test/a?b=1').searchParams.get('b') === '1' && new URLSearchParams('c=2').get('c') === '2'",
        text: "new TextDecoder().decode(new TextEncoder().encode('é')) === 'é'",
        clone: 'structuredClone({ a: [1, new Map([[1, 2]])] }).a[1].get(1) === 2',
        assert: "(require('assert').deepStrictEqual({ a: 1 }, { a: 1 }), require('node:assert/strict').throws(() => { throw new Error('x') }), true)",
        util: "require('util').format('%s=%d', 'n', 3) === 'n=3' && require('util').isDeepStrictEqual([1], [1]) && require('util').inspect({ a: 1 }) === '{ a: 1 }'",
        path: "require('path').join('/a', 'b', '../c.js') === '/a/c.js' && require('node:path').resolve('x') === '/x'",
        events:
          "(() => { const E = require('events'); const e = new E(); let got = 0; e.once('x', (v) => { got += v }); e.emit('x', 2); e.emit('x', 5); class F extends E {}; return got === 2 && new F().emit('y') === false })()",
        buffer: "require('buffer').Buffer.from('hi').toString('hex') === '6869' && Buffer.alloc(3).length === 3",
        promises: "await require('timers/promises').setTimeout(5, 'v') === 'v'",
        strings: "'import(x)'.length === 9 && \"eval(y) <!-- -->\".length === 16 && `import('z')`.length === 11",
        evalConfined: "eval('typeof process') === 'undefined'",
        console:
          "(console.count(), console.time('t'), console.timeEnd('t'), console.assert(true), console.group('g'), console.groupEnd(), console.table([1]), true)",
        paths: "__dirname === '/src' && __filename === '/src/m.js'"
      }) + "\n// a comment with import('fs') and eval(x) --> in it\n"
    )
    accepted(r)
  })

  it('allocates 100 MB in a test', async () => {
    const r = await run(
      checks({ big: '(() => { const keep = []; for (let i = 0; i < 100; i++) keep.push(new Uint8Array(1 << 20).fill(i)); return keep.length === 100 })()' })
    )
    accepted(r)
  })

  it('shows each test its console output, never as a result, and what was printed outside any test', async () => {
    const source =
      "'use strict'\nconsole.log('loading')\nmodule.exports = { check: () => { console.log('checking'); console.error('to stderr'); return true } }\n"
    const r = await run(source, suite("test('prints', () => { m.check(); require('node:assert').fail('printed, and still failing') })"))
    const byName = new Map(r.outcomes.map((o) => [o.name, o]))
    expect(byName.get('passes')).toMatchObject({ passed: true, output: 'checking\nto stderr\n' })
    expect(byName.get('prints')).toMatchObject({ passed: false, output: 'checking\nto stderr\n' })
    expect(byName.get('fails')?.output).toBeUndefined()
    expect(r.file.output).toBe('loading\n')
  })

  it('refuses a real dynamic import with a clear message, and the file counts as failed', async () => {
    const r = await run("'use strict'\nconst s = 'import(\"ok in a string\")'\nmodule.exports = { check: () => import('node:fs') }\n")
    expect(E.isLeft(r.file.report)).toBe(true)
    expect(r.file.result.stderr).toContain('src/m.js:3: dynamic import() is not available to the code under test; use require()')
    expect(r.score.passed).toBe(0)
  })

  it('shows repository-relative paths in stack traces, and no host path', async () => {
    const r = await run("'use strict'\n\nmodule.exports = { check: () => { throw new Error('boom at ' + __filename) } }\n")
    const message = r.outcomes.find((o) => o.name === 'passes')?.message ?? ''
    expect(message).toContain('boom at /src/m.js')
    const crash = await run("'use strict'\nrequire('./missing')\n")
    expect(crash.file.result.stderr).toContain("Cannot find module './missing' (from src)")
    expect(crash.file.result.stderr).toMatch(/\(src\/m\.js:2:1\)/)
    for (const text of [message, crash.file.result.stderr]) expect(text).not.toContain(crash.repoDir)
  })

  it('gives no oracle of host files: outside the repository and not found read the same', async () => {
    const outside = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-oracle-'))
    fs.writeFileSync(path.join(outside, 'exists.js'), 'module.exports = 1')
    try {
      const up = '../'.repeat(12) + outside.slice(1)
      const message = async (spec: string) => {
        const r = await run(`'use strict'\nrequire(${JSON.stringify(spec)})\n`)
        return /Error: (.*)/.exec(r.file.result.stderr)?.[1]?.replace(spec, 'SPEC')
      }
      const exists = await message(`${up}/exists.js`)
      expect(exists).toBe("Cannot find module 'SPEC' (from src)")
      expect(await message(`${up}/missing.js`)).toBe(exists)
      expect(await message('/../../../../../../../etc/hostname')).toBe(exists)
    } finally {
      fs.rmSync(outside, { recursive: true, force: true })
    }
  })
})

describe('the new surface, as an attacker uses it', () => {
  it('timers cannot outlive the run: pending intervals and long timeouts end with the last test', async () => {
    const source =
      "'use strict'\nsetInterval(() => console.log('tick'), 1)\nsetTimeout(() => console.log('never'), 1e9)\nmodule.exports = { check: () => { setInterval(() => {}, 5).ref(); return true } }\n"
    const r = await run(source)
    accepted(r)
    expect(r.file.result.timedOut).toBe(false)
    expect(r.file.result.ms).toBeLessThan(tight.timeoutMs)
    expect(r.file.result.stdout).not.toContain('never')
  })

  it('timers take no code strings and hand out no Node object', async () => {
    const r = await run(
      checks({
        noString: "(() => { try { setTimeout('globalThis.x = 1', 0); return false } catch (e) { return e instanceof TypeError } })()",
        frozen: 'Object.isFrozen(setTimeout(() => 0, 1)) && Object.getPrototypeOf(setTimeout(() => 0, 1)) === Object.prototype',
        noThis: 'await new Promise((resolve) => setTimeout(function () { resolve(this === undefined) }, 1))'
      })
    )
    accepted(r)
  })

  it('the built-ins reach nothing of the host: frozen, no process, no shared buffer memory, no custom inspect', async () => {
    const r = await run(
      checks({
        frozen:
          "['assert', 'util', 'path', 'buffer', 'url', 'timers'].every((n) => Object.isFrozen(require(n))) && Object.isFrozen(Buffer.prototype) && Object.isFrozen(Intl)",
        noFunction:
          "[require('util').format, require('path').join, setTimeout, Buffer, URL, structuredClone, Intl.NumberFormat].every((f) => { try { f.constructor('return process')(); return false } catch { return true } })",
        noPool: "Buffer.from('x').buffer.byteLength === 1 && Buffer.allocUnsafe(64).every((b) => b === 0)",
        noInspector:
          "(() => { let reached = false; require('util').inspect({ [require('util').inspect.custom]: () => { reached = true } }); require('util').format('%o', { [Symbol.for('nodejs.util.inspect.custom')]: () => { reached = true } }); return !reached })()",
        noFs: "['fs', 'child_process', 'net', 'process', 'vm', 'worker_threads', 'module', 'inspector', 'v8'].every((n) => { try { require(n); return false } catch { return true } })",
        noGlobalProcess: "typeof process === 'undefined' && typeof globalThis.process === 'undefined' && typeof require('events').prototype.emit === 'function'"
      })
    )
    accepted(r)
  })

  it('a console flood is capped in the report and the run; the results are untouched', async () => {
    const source = "'use strict'\nmodule.exports = { check: () => { for (let i = 0; i < 2000; i++) console.log('x'.repeat(20)); return true } }\n"
    const r = await run(source, suite(), { ...tight, maxOutputBytes: 1 << 20 })
    accepted(r)
    const output = r.outcomes.find((o) => o.name === 'passes')?.output ?? ''
    expect(output.length).toBeLessThan(2200)
    expect(output).toMatch(/\[output truncated: \d+ more characters not shown\]/)
  })

  it.runIf(Sandbox.probe().available.includes('rlimits'))(
    'memory: just under the limit runs; over it, the run dies and says so [needs SWE sandbox guards]',
    async () => {
      const limits = { ...tight, memoryMb: 128, timeoutMs: 8000 }
      const grow = (mb: number) =>
        checks({ grow: `(() => { const keep = []; for (let i = 0; i < ${mb}; i++) keep.push(new Array(1 << 17).fill(i)); return keep.length === ${mb} })()` })
      accepted(await run(grow(64), suite(), limits))
      const over = await run(grow(400), suite(), limits)
      expect(E.isLeft(over.file.report)).toBe(true)
      expect(Sandbox.memoryExceeded(over.file.result)).toBe(true)
      expect(over.score.passed).toBe(0)
    }
  )
})
