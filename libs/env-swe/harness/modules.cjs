// ES modules for the Compartments (issue 55). The host compiles every ES module of the repository
// (and an ES-module test file) into a SES module record with @endo/module-source: plain data,
// its imports, exports and the program that evaluates it (src/internal/esm.ts). Here the records
// become module sources for SES's `importNowHook`, and whatever else a module imports (a
// CommonJS file, a JSON file, a built-in) becomes a virtual module source over its value, with
// a `default` export and one export per own key, as Node's import of CommonJS gives.
'use strict'
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, loaded by main.cjs before any loader */
const { rewrite } = require('./source.cjs')

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/** A module source whose exports are `value` (a CommonJS module's `module.exports`, a JSON value, a built-in): `default`, and its own keys. */
const valueSource = (value) => {
  const keys =
    value !== null && (typeof value === 'object' || typeof value === 'function') ? Object.keys(value).filter((k) => IDENTIFIER.test(k) && k !== 'default') : []
  return harden({
    imports: [],
    exports: ['default', ...keys],
    execute: (env) => {
      env.default = value
      for (const k of keys) env[k] = value[k]
    }
  })
}

/**
 * The module source of a compiled ES module shown as `shown` (a repository path): its program
 * with the look-alikes of `import(` outside code escaped (source.cjs) and a `sourceURL`, so stack
 * traces name the file. A file that did not compile throws its syntax error; one that uses
 * `import()` throws the same refusal as CommonJS code gets.
 */
const recordSource = (compiled, shown) => {
  if (typeof compiled !== 'object' || compiled === null) throw new SyntaxError(`${shown}: not compiled`)
  if (typeof compiled.error === 'string') throw new SyntaxError(compiled.error)
  const record = compiled.record
  if (record.__needsImport__ === true) throw new SyntaxError(`${shown}: dynamic import() is not available to the code under test; use a static import`)
  const url = shown.replace(/[\r\n\u2028\u2029]/g, '_')
  return { ...record, __syncModuleProgram__: `${rewrite(String(record.__syncModuleProgram__))}\n//# sourceURL=${url}` }
}

module.exports = { valueSource, recordSource }
