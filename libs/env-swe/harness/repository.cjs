// The repository's code, loaded into one SES Compartment (see main.cjs). Its globals are the
// frozen intrinsics, a console, `Date`, `Math` and the hardened extras of globals.cjs; its
// `require` reaches the repository's own files (CommonJS and JSON) and the safe built-ins of
// builtins.cjs, nothing else.
//
// Paths: the code sees the repository as the root `/` (`__dirname` is `/src`, `require('/lib/x')`
// is the repository's `lib/x.js`), and stack traces name files as the agent does (`src/m.js`): no
// host path reaches the code or its errors. A path that leaves the repository, lexically or
// through a symlink, is "not found", with the same message as a file that does not exist, so
// `require` cannot tell what exists outside.
'use strict'
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, loaded by main.cjs before any loader */

/* global harden, Compartment */
const fs = require('node:fs')
const path = require('node:path')
const { makeBuiltins } = require('./builtins.cjs')
const { extraGlobals } = require('./globals.cjs')
const { dynamicImportError, rewrite } = require('./source.cjs')

const RELATIVE = /^\.\.?(\/|$)/

/** The repository's module system: `load(file)` and `requireFrom(dir)`. */
const makeRepository = ({ repoDir, console, timeoutMs }) => {
  const { globals, lazy, release } = extraGlobals(timeoutMs)
  const compartment = new Compartment({ globals: { console, Date, Math, ...globals }, __options__: true, name: 'repository' })
  for (const [name, get] of Object.entries(lazy)) Object.defineProperty(compartment.globalThis, name, { get, enumerable: false, configurable: false })
  const inside = (p) => p === repoDir || p.startsWith(repoDir + path.sep)
  const shown = (p) => path.relative(repoDir, p) || '.'
  const rooted = (p) => `/${path.relative(repoDir, p)}`

  const evaluate = (source, url) => {
    const wrapped = `(function (exports, require, module, __filename, __dirname) {${rewrite(source.replace(/^#!.*/, ''))}\n})\n//# sourceURL=${url.replace(/[\r\n\u2028\u2029]/g, '_')}`
    try {
      return compartment.evaluate(wrapped, { __rejectSomeDirectEvalExpressions__: false })
    } catch (e) {
      throw dynamicImportError(e)
    }
  }
  const evaluateEvents = () => {
    const module = { exports: {} }
    evaluate(fs.readFileSync(path.join(__dirname, 'events.js'), 'utf8'), 'node:events')(module.exports, undefined, module, '/', '/')
    return module.exports
  }
  const builtins = makeBuiltins(globals, evaluateEvents)

  const resolveFrom = (dir, spec) => {
    if (typeof spec !== 'string' || !(RELATIVE.test(spec) || spec.startsWith('/'))) {
      throw new Error(
        `Cannot find module '${String(spec)}': the code under test can require the repository's own files, by a relative path, and these Node built-ins: ${builtins.names.join(', ')}`
      )
    }
    const notFound = () => new Error(`Cannot find module '${spec}' (from ${shown(dir)})`)
    const base = spec.startsWith('/') ? path.join(repoDir, spec) : path.resolve(dir, spec)
    if (!inside(base)) throw notFound()
    for (const candidate of [base, `${base}.js`, `${base}.json`, path.join(base, 'index.js')]) {
      let real
      try {
        real = fs.realpathSync(candidate)
      } catch {
        continue
      }
      if (!inside(real)) throw notFound()
      if (fs.statSync(real).isFile()) return real
    }
    throw notFound()
  }

  const modules = new Map()
  const load = (file) => {
    const cached = modules.get(file)
    if (cached !== undefined) return cached.exports
    const module = { exports: {}, id: shown(file), filename: rooted(file), loaded: false }
    modules.set(file, module)
    try {
      const source = fs.readFileSync(file, 'utf8')
      if (file.endsWith('.json')) module.exports = JSON.parse(source)
      else {
        const dir = path.dirname(file)
        evaluate(source, shown(file)).call(module.exports, module.exports, requireFrom(dir), module, rooted(file), rooted(dir))
      }
    } catch (e) {
      modules.delete(file)
      throw e
    }
    module.loaded = true
    return module.exports
  }
  const requireFrom = (dir) => harden((spec) => (builtins.has(spec) ? builtins.get(spec) : load(resolveFrom(dir, spec))))

  return { load, resolveFrom, shown, release }
}

module.exports = { makeRepository }
