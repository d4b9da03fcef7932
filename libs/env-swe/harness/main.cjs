// The trusted entry point of every sandboxed test run: `node --test-reporter=reporter.mjs main.cjs`.
// See src/Harness.ts for the host's side and docs/decisions/0008-swe-reward-threat-model.md for
// what this defends against. In order, before any code of the repository exists in the process:
//
// 1. reads the run's configuration from stdin (fd 0) and closes it: the per-run secret, the
//    tripwire's name, and the test file's original source (the copy on disk is never trusted);
// 2. opens the results channel: signed lines on fd 3, a pipe only the host reads, handed to the
//    reporter once (it is imported before the test file, so nothing else can take it);
// 3. locks the realm down with SES `lockdown()` (every intrinsic frozen, `Function` and `eval`
//    tamed) and hardens `node:test` and `node:assert`;
// 4. builds one SES Compartment for the repository's code (repository.cjs): its globals are the
//    frozen intrinsics plus a console, Date, Math, typed arrays, Intl, URL, structuredClone and
//    tamed timers (globals.cjs), and its `require` reaches only the repository's own files and
//    a safe subset of Node's built-ins (builtins.cjs). No `process`, no `fs`, no `import()`: the
//    judged code cannot reach stdout, fd 3, the assertions or the runner. What it prints is kept
//    per test (output.cjs) and attached, as text, to the test's signed line;
// 5. runs the test file (in this realm, with the real `require` for Node built-ins and the
//    compartment's for the repository's files), then registers the tripwire: a test that must
//    fail on every run. The reporter signs every outcome and the end of the run.
'use strict'
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose: it runs first, synchronously, before any loader */
const { createHmac } = require('node:crypto')
const fs = require('node:fs')
const { builtinModules } = require('node:module')
const path = require('node:path')
const { pathToFileURL } = require('node:url')
const vm = require('node:vm')
const { makeConsole, makeOutput, wrapRunner } = require('./output.cjs')
const { recordSource, valueSource } = require('./modules.cjs')
const { makeRepository } = require('./repository.cjs')

// Captured now: later patches of these modules do not reach the channel.
const { closeSync, readFileSync, writeSync } = fs
const bufferFrom = Buffer.from.bind(Buffer)
const CHANNEL_FD = 3

// 1. Configuration.
const config = JSON.parse(readFileSync(0, 'utf8'))
closeSync(0)
for (const key of ['secret', 'tripwire', 'repoDir', 'testFile', 'testSource']) {
  if (typeof config[key] !== 'string') throw new TypeError(`harness: config.${key} must be a string`)
}
const { secret, tripwire, repoDir, testFile, testSource } = config

// 2. The channel. A line is `<json>\t<hex HMAC-SHA256(secret, json)>`; `seq` numbers the lines.
let seq = 0
const send = (record) => {
  const body = JSON.stringify({ seq: seq++, ...record })
  const line = bufferFrom(`${body}\t${createHmac('sha256', secret).update(body).digest('hex')}\n`)
  for (let at = 0; at < line.length;) at += writeSync(CHANNEL_FD, line, at)
}
let taken = false
const take = () => {
  if (taken) throw new Error('harness: the results channel was already taken')
  taken = true
  return { send, output: { take: output.take, rest: output.rest } }
}

// 3. Lockdown. Errors keep their stacks (the agent reads them); uncaught errors stay Node's.
// The SES bundle is compiled with V8's code cache when the host made one for these flags.
const sesFile = path.join(__dirname, 'ses.js')
let cachedData
if (typeof config.sesCache === 'string') {
  try {
    cachedData = readFileSync(path.join(__dirname, path.basename(config.sesCache)))
  } catch {
    cachedData = undefined
  }
}
// No buffer of the repository's code shares memory with the harness's (with --zero-fill-buffers).
Buffer.poolSize = 0
new vm.Script(readFileSync(sesFile, 'utf8'), { filename: sesFile, cachedData }).runInThisContext()
/* global lockdown, harden */
lockdown({ errorTaming: 'unsafe', errorTrapping: 'none', unhandledRejectionTrapping: 'none', stackFiltering: 'concise' })
const test = require('node:test')
const assert = require('node:assert')
const strict = require('node:assert/strict')
harden([test, assert, strict, Buffer])
module.exports = harden({ take })

// 4. The console and the compartment of the repository's code. What the code prints goes to the
// run's stdout and stderr (the host caps them) and, attributed to the test that printed it, to
// the output the reporter attaches to each test's line (output.cjs). Its caps keep the channel
// small: 8,000 characters, even JSON-escaped (6 bytes a character at worst), are under 64 KB.
const output = makeOutput({ perTest: 2000, total: 8000 })
const sandboxConsole = harden(makeConsole(output, process.stdout, process.stderr))
const timeoutMs = typeof config.timeoutMs === 'number' && config.timeoutMs > 0 ? config.timeoutMs : 10000
const modules = config.modules !== null && typeof config.modules === 'object' ? config.modules : {}
const repository = makeRepository({ repoDir, console: sandboxConsole, timeoutMs, modules })

// 5. The reporter takes the channel (node:test imports the same module later), then the test
// file runs from its original source, then the tripwire is registered.
const builtins = new Set(builtinModules)
const testDir = path.dirname(testFile)
const runner = harden(wrapRunner(test, output))
const testRequire = (spec) => {
  if (spec === 'node:test' || spec === 'test') return runner
  if (typeof spec === 'string' && (spec.startsWith('node:') || builtins.has(spec))) return require(spec)
  return repository.load(repository.resolveFrom(testDir, spec))
}
const testModule = { exports: {}, id: repository.shown(testFile), filename: testFile }
const stackOf = (e) => {
  try {
    const stack = e !== null && typeof e === 'object' ? e.stack : undefined
    return typeof stack === 'string' ? stack : `Uncaught ${String(e)}`
  } catch {
    return 'Uncaught exception (it could not be read)'
  }
}
// An ES-module test file (compiled by the host from its original source) runs in a Compartment
// of its own with this realm's globals: it is the task's own code, as trusted as a CommonJS test
// file, and imports `node:test` (the runner), Node's built-ins, and the repository's modules
// (from the repository's Compartment).
const testGlobals = { console, process, Date, Math, Buffer, URL, URLSearchParams, TextEncoder, TextDecoder, structuredClone, atob, btoa, queueMicrotask }
for (const k of ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate']) testGlobals[k] = globalThis[k]
const importTests = () => {
  const self = repository.rooted(testFile)
  const tests = new Compartment({
    globals: testGlobals,
    __options__: true,
    name: 'tests',
    resolveHook: (spec, referrer) => {
      if (spec === 'node:test' || spec === 'test' || (typeof spec === 'string' && (spec.startsWith('node:') || builtins.has(spec)))) return spec
      return repository.rooted(repository.resolveFrom(path.join(repoDir, path.posix.dirname(referrer)), spec))
    },
    importNowHook: (specifier) => {
      if (specifier === self) return { source: recordSource(config.testModule, repository.shown(testFile)), specifier }
      if (specifier === 'node:test' || specifier === 'test') return { source: valueSource(runner), specifier }
      if (!specifier.startsWith('/')) return { source: valueSource(require(specifier)), specifier }
      const file = path.join(repoDir, specifier)
      return repository.isModule(file) ? repository.moduleOf(file) : { source: valueSource(repository.load(file)), specifier }
    },
    importMetaHook: (specifier, meta) => {
      meta.url = `file://${specifier}`
    }
  })
  tests.importNow(self)
}
const runTests = () => {
  try {
    if (config.testModule !== undefined) importTests()
    else {
      const compiled = vm.compileFunction(testSource, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: repository.shown(testFile) })
      compiled.call(testModule.exports, testModule.exports, testRequire, testModule, testFile, testDir)
    }
  } catch (e) {
    // Loading failed (a module of the repository threw): say why, as Node would if lockdown did
    // not make its printer show `{}`. The run ends unreported, so its tests count as failed.
    writeSync(2, bufferFrom(`${stackOf(e)}\n`))
    process.exit(1)
  }
  test(tripwire, () => {
    repository.release()
    strict.equal(tripwire, 'a test that fails on every run')
  })
}
import(pathToFileURL(path.join(__dirname, 'reporter.mjs')).href).then(runTests, (e) => {
  process.stderr.write(`harness: the reporter did not load: ${e && e.stack}\n`)
  process.exitCode = 70
})
