// The repository's code, loaded into one SES Compartment (see main.cjs). Its globals are the
// frozen intrinsics, a console, `Date`, `Math` and the hardened extras of globals.cjs; its
// `require` reaches the repository's own files (CommonJS and JSON) and the safe built-ins of
// builtins.cjs, nothing else. ES modules (issue 55) load into the same Compartment from the
// records the host compiled (modules.cjs): they import each other, CommonJS and JSON files and
// the same built-ins; `require()` of an ES module gives its namespace, as Node 22 does.
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
const { recordSource, valueSource } = require('./modules.cjs')
const { dynamicImportError, rewrite } = require('./source.cjs')

const RELATIVE = /^\.\.?(\/|$)/

/**
 * The repository's module system: `load(file)` and `requireFrom(dir)`; `modules` are the host's
 * compiled ES modules by repository path.
 */
const makeRepository = ({ repoDir, console, timeoutMs, modules = {} }) => {
  const { globals, lazy, release } = extraGlobals(timeoutMs)
  const isModule = (file) => Object.prototype.hasOwnProperty.call(modules, path.relative(repoDir, file))
  const hooks = {
    // Specifiers are rooted repository paths (`/src/a.js`) or built-ins (`node:util`).
    resolveHook: (spec, referrer) =>
      builtins.has(spec) ? `node:${spec.replace(/^node:/, '')}` : rooted(resolveFrom(path.join(repoDir, path.posix.dirname(referrer)), spec)),
    importNowHook: (specifier) => {
      if (specifier.startsWith('node:')) return { source: valueSource(builtins.get(specifier)), specifier }
      const file = path.join(repoDir, specifier)
      return { source: isModule(file) ? recordSource(modules[path.relative(repoDir, file)], shown(file)) : valueSource(load(file)), specifier }
    },
    importMetaHook: (specifier, meta) => {
      meta.url = `file://${specifier}`
    }
  }
  const compartment = new Compartment({ globals: { console, Date, Math, ...globals }, __options__: true, name: 'repository', ...hooks })
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

  const loaded = new Map()
  const load = (file) => {
    if (isModule(file)) return compartment.importNow(rooted(file))
    const cached = loaded.get(file)
    if (cached !== undefined) return cached.exports
    const module = { exports: {}, id: shown(file), filename: rooted(file), loaded: false }
    loaded.set(file, module)
    try {
      const source = fs.readFileSync(file, 'utf8')
      if (file.endsWith('.json')) module.exports = JSON.parse(source)
      else {
        const dir = path.dirname(file)
        evaluate(source, shown(file)).call(module.exports, module.exports, requireFrom(dir), module, rooted(file), rooted(dir))
      }
    } catch (e) {
      loaded.delete(file)
      throw e
    }
    module.loaded = true
    return module.exports
  }
  const requireFrom = (dir) => harden((spec) => (builtins.has(spec) ? builtins.get(spec) : load(resolveFrom(dir, spec))))

  /** An ES module of the repository as another Compartment links it: the same instance, live. */
  const moduleOf = (file) => ({ namespace: rooted(file), compartment })

  return { load, moduleOf, resolveFrom, shown, rooted, isModule, release }
}

module.exports = { makeRepository }
