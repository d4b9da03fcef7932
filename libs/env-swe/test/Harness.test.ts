/**
 * The harness, layer by layer. Code of the repository is confined to a Compartment (first
 * block). Behind that, the results channel must hold even against code with the powers of the
 * test file itself (second block: each "escaped" attack is written into a test file's source,
 * which runs outside the Compartment): at worst a file's report is rejected, so a failing test
 * never counts as passed.
 */
import * as fs from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Harness.js'
import * as Suite from '../src/Suite.js'
import * as Workspace from '../src/Workspace.js'
import { tight } from './helpers.js'

const source = "'use strict'\nmodule.exports = { one: () => 1 }\n"
const suite = (prefix: string): string =>
  [
    "'use strict'",
    "const test = require('node:test')",
    "const assert = require('node:assert/strict')",
    "const m = require('../src/m.js')",
    prefix,
    "test('passes', () => { assert.equal(m.one(), 1) })",
    "test('fails', () => { assert.equal(m.one(), 2) })"
  ].join('\n')
const expected = ['test/m.test.js > passes', 'test/m.test.js > fails']

/** Runs a one-file suite; `src` files go on disk, the test's source only to the harness. */
const run = async (testSource: string, src: Readonly<Record<string, string>> = { 'src/m.js': source }) => {
  const ws = Workspace.make({ ...src, 'test/m.test.js': testSource })
  try {
    const r = await Suite.run({ limits: tight })(ws, { 'test/m.test.js': testSource })()
    if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
    return { ...r.right, file: r.right.runs[0]!, score: Suite.score(expected, r.right.outcomes) }
  } finally {
    ws.dispose()
  }
}

describe('Harness', () => {
  it('installs the entry point, the reporter and the SES bundle, read-only for others', () => {
    const dir = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-harness-'))
    try {
      _.install(path.join(dir, 'h'))
      for (const name of [_.MAIN, _.REPORTER, _.SES]) {
        const st = fs.statSync(path.join(dir, 'h', name))
        expect(st.size, name).toBeGreaterThan(100)
        expect(st.mode & 0o777, name).toBe(0o644)
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('keeps one V8 code cache of SES per heap size, and a corrupt cache only costs speed', async () => {
    const dir = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-cache-'))
    try {
      expect(_.ensureCache(dir, 225)).toBe('ses-225.cache')
      expect(fs.statSync(path.join(dir, 'ses-225.cache')).size).toBeGreaterThan(1000)
      expect(_.sesCache(225)).toBe(_.sesCache(225))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
    const ws = Workspace.make({ 'src/m.js': source })
    try {
      fs.writeFileSync(path.join(ws.harnessDir, 'ses-225.cache'), 'not a code cache')
      const r = await Suite.run({ limits: tight })(ws, { 'test/m.test.js': suite('') })()
      expect(E.isRight(r) && r.right.runs[0]!.report).toEqual(
        E.right([expect.objectContaining({ name: 'passes', status: 'pass' }), expect.objectContaining({ name: 'fails', status: 'fail' })])
      )
    } finally {
      ws.dispose()
    }
  })

  it('reports the truth of an honest suite, and the test file on disk is never the one that runs', async () => {
    const r = await run(suite(''))
    expect(r.file.report).toEqual(
      E.right([expect.objectContaining({ name: 'passes', status: 'pass' }), expect.objectContaining({ name: 'fails', status: 'fail' })])
    )
    expect(r.score).toMatchObject({ passed: 1, failing: ['test/m.test.js > fails'] })
  })

  describe('the Compartment', () => {
    it('gives the repository code a console, Date and Math, relative requires and JSON, and no power of Node', async () => {
      const m = [
        "'use strict'",
        "const data = require('./data.json')",
        "const other = require('./lib')",
        'const probes = {}',
        "for (const [k, f] of Object.entries({ process: () => process, require_fs: () => require('fs'), require_up: () => require('../../../etc/hostname'), Function: () => Function('return process')(), child_process: () => require('child_process'), vm: () => require('node:vm'), net: () => require('net'), worker: () => require('worker_threads'), module: () => require('module') })) {",
        "  try { probes[k] = typeof f() } catch (e) { probes[k] = 'blocked' }",
        '}',
        "console.log('console works')",
        "module.exports = { one: () => (Date.now() > 0 && Math.random() < 1 && data.x === 1 && other.two === 2 && Object.values(probes).every((v) => v === 'blocked' || v === 'undefined') ? 1 : JSON.stringify(probes)) }"
      ].join('\n')
      const r = await run(suite(''), { 'src/m.js': m, 'src/data.json': '{"x":1}', 'src/lib/index.js': 'module.exports = { two: 2 }' })
      expect(r.file.report).toEqual(
        E.right([expect.objectContaining({ name: 'passes', status: 'pass' }), expect.objectContaining({ name: 'fails', status: 'fail' })])
      )
      expect(r.file.result.stdout).toContain('console works')
    })

    it('refuses a syntax the Compartment cannot confine (dynamic import) and counts the file as failed', async () => {
      const r = await run(suite(''), { 'src/m.js': "module.exports = { one: () => 1, later: () => import('node:fs') }" })
      expect(E.isLeft(r.file.report)).toBe(true)
      expect(r.file.result.stderr).toMatch(/import/)
      expect(r.score.passed).toBe(0)
    })
  })

  describe('with the powers of the test file (an escape from the Compartment)', () => {
    const truthful = E.right([expect.objectContaining({ name: 'passes', status: 'pass' }), expect.objectContaining({ name: 'fails', status: 'fail' })])
    /** Each attack, and what stops it: the report it leaves, and what the run printed. */
    const attacks: ReadonlyArray<readonly [string, string, unknown, RegExp?]> = [
      [
        'unsigned lines on fd 3',
        "require('fs').writeSync(3, JSON.stringify({ seq: 0, kind: 'test', name: 'fails', status: 'pass', message: '' }) + '\\t' + '0'.repeat(64) + '\\n')",
        E.left({ _tag: 'Unsigned', line: 0 })
      ],
      [
        'reporter lines on stdout',
        "console.log('@@mtrl-swe@@' + JSON.stringify({ name: 'fails', passed: true })); console.log(JSON.stringify({ seq: 1, kind: 'test', name: 'fails', status: 'pass', message: '' }))",
        truthful
      ],
      [
        'no-op assertions',
        "try { require('node:assert/strict').equal = () => {} } catch (e) { console.log('assert is frozen:', e.constructor.name) }",
        truthful,
        /assert is frozen: TypeError/
      ],
      [
        'rewritten fs.writeSync',
        'const fs = require(\'fs\'); const w = fs.writeSync; fs.writeSync = (fd, b, ...r) => w(fd, String(b).replace(\'"status":"fail"\', \'"status":"pass"\'), ...r)',
        truthful
      ],
      [
        'rewritten stdout.write',
        "const w = process.stdout.write.bind(process.stdout); process.stdout.write = (c, ...r) => w(String(c).replace('fail', 'pass'), ...r)",
        truthful
      ],
      ['exit 0 in the middle', "test('exits', () => { process.exit(0) })", E.left({ _tag: 'Incomplete', tests: 0 })],
      ['a duplicate passing test', "test('fails', () => {})", E.left({ _tag: 'Duplicate', name: 'fails' })],
      [
        'taking the channel',
        "try { process.mainModule.exports.take().send({ kind: 'test', name: 'fails', status: 'pass', message: '' }) } catch (e) { console.log(e.message) }",
        truthful,
        /already taken/
      ],
      [
        'replacing node:test',
        "try { require('node:test').test = () => {} } catch (e) { console.log('test is frozen:', e.constructor.name) }",
        truthful,
        /test is frozen: TypeError/
      ]
    ]
    for (const [name, attack, report, printed] of attacks) {
      it(`${name}: the failing test never counts as passed`, async () => {
        const r = await run(suite(attack))
        expect(r.file.report).toEqual(report)
        if (printed !== undefined) expect(r.file.result.stdout).toMatch(printed)
        expect(r.score.failing).toContain('test/m.test.js > fails')
      })
    }
  })
})
