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
// 4. builds one SES Compartment for the repository's code: its globals are the frozen
//    intrinsics plus a console, Date and Math, and its `require` reaches only the repository's
//    own files, loaded into the same compartment. No `process`, no `require('fs')`, no
//    `import()`: the judged code cannot reach stdout, fd 3, the assertions or the runner;
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
const util = require('node:util')
const vm = require('node:vm')

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
  for (let at = 0; at < line.length; ) at += writeSync(CHANNEL_FD, line, at)
}
let taken = false
const take = () => {
  if (taken) throw new Error('harness: the results channel was already taken')
  taken = true
  return { send }
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
new vm.Script(readFileSync(sesFile, 'utf8'), { filename: sesFile, cachedData }).runInThisContext()
/* global lockdown, harden, Compartment */
lockdown({ errorTaming: 'unsafe', errorTrapping: 'none', unhandledRejectionTrapping: 'none', stackFiltering: 'concise' })
const test = require('node:test')
const assert = require('node:assert')
const strict = require('node:assert/strict')
harden([test, assert, strict])
module.exports = harden({ take })

// 4. The compartment of the repository's code.
const format = (args) => `${util.formatWithOptions({ customInspect: false, depth: 4, colors: false }, ...args)}\n`
const writer = (stream) => (...args) => {
  stream.write(format(args))
}
const sandboxConsole = harden({
  log: writer(process.stdout),
  info: writer(process.stdout),
  debug: writer(process.stdout),
  warn: writer(process.stderr),
  error: writer(process.stderr),
  dir: writer(process.stdout),
  table: writer(process.stdout)
})
const compartment = new Compartment({ globals: { console: sandboxConsole, Date, Math }, __options__: true, name: 'repository' })

const inside = (p) => p === repoDir || p.startsWith(repoDir + path.sep)
const resolveFrom = (dir, spec) => {
  if (typeof spec !== 'string' || !/^\.\.?(\/|$)/.test(spec)) {
    throw new Error(`require(${JSON.stringify(spec)}): code under test can only require the repository's own files, by a relative path`)
  }
  const base = path.resolve(dir, spec)
  for (const candidate of [base, `${base}.js`, `${base}.json`, path.join(base, 'index.js')]) {
    let real
    try {
      real = fs.realpathSync(candidate)
    } catch {
      continue
    }
    if (!inside(real)) throw new Error(`require(${JSON.stringify(spec)}): outside the repository`)
    if (fs.statSync(real).isFile()) return real
  }
  throw new Error(`Cannot find module '${spec}' (from ${path.relative(repoDir, dir) || '.'})`)
}
const modules = new Map()
const load = (file) => {
  const cached = modules.get(file)
  if (cached !== undefined) return cached.exports
  const module = { exports: {}, id: file, filename: file, loaded: false }
  modules.set(file, module)
  try {
    const source = fs.readFileSync(file, 'utf8')
    if (file.endsWith('.json')) module.exports = JSON.parse(source)
    else {
      const url = file.replace(/[\r\n\u2028\u2029]/g, '_')
      const wrapper = compartment.evaluate(`(function (exports, require, module, __filename, __dirname) {${source.replace(/^#!.*/, '')}\n})\n//# sourceURL=${url}`)
      const dir = path.dirname(file)
      wrapper.call(module.exports, module.exports, requireFrom(dir), module, file, dir)
    }
  } catch (e) {
    modules.delete(file)
    throw e
  }
  module.loaded = true
  return module.exports
}
const requireFrom = (dir) => harden((spec) => load(resolveFrom(dir, spec)))

// 5. The reporter takes the channel (node:test imports the same module later), then the test
// file runs from its original source, then the tripwire is registered.
const builtins = new Set(builtinModules)
const testDir = path.dirname(testFile)
const testRequire = (spec) => (typeof spec === 'string' && (spec.startsWith('node:') || builtins.has(spec)) ? require(spec) : load(resolveFrom(testDir, spec)))
const testModule = { exports: {}, id: testFile, filename: testFile }
const runTests = () => {
  const compiled = vm.compileFunction(testSource, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: testFile })
  compiled.call(testModule.exports, testModule.exports, testRequire, testModule, testFile, testDir)
  test(tripwire, () => {
    strict.equal(tripwire, 'a test that fails on every run')
  })
}
import(pathToFileURL(path.join(__dirname, 'reporter.mjs')).href).then(runTests, (e) => {
  process.stderr.write(`harness: the reporter did not load: ${e && e.stack}\n`)
  process.exitCode = 70
})
