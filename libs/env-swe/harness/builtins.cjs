// The Node built-ins the repository's code may `require` (see main.cjs): a safe subset, each a
// fresh hardened facade, never a module object the harness or Node's internals rely on.
//
// - `assert`, `assert/strict`: Node's own, hardened before any repository code exists (the test
//   file asserts with the same frozen functions);
// - `util`: pure functions; `inspect` and `format` never call the code's custom inspectors
//   (`customInspect: false`, as the console does: they would receive Node's inspect itself);
// - `path`: POSIX, with the repository's root as the working directory `/` (no host path);
// - `events`: an EventEmitter evaluated inside the Compartment (events.js);
// - `buffer`, `url`, `timers`, `timers/promises`: the values of globals.cjs.
//
// Anything else (`fs`, `child_process`, `net`, `process`, `vm`, `worker_threads`, ...) is refused
// with a message naming what is available.
'use strict'
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, loaded by main.cjs before any loader */

/* global harden */
const nodePath = require('node:path')
const nodeUtil = require('node:util')

const noCustom = (options) => ({ ...(typeof options === 'object' && options !== null ? options : {}), customInspect: false })

const makeUtil = () => {
  const inspect = (value, options) => nodeUtil.inspect(value, noCustom(options))
  inspect.custom = nodeUtil.inspect.custom
  const promisify = (fn) => nodeUtil.promisify(fn)
  promisify.custom = nodeUtil.promisify.custom
  const legacy = ['isArray', 'isBoolean', 'isBuffer', 'isNull', 'isNullOrUndefined', 'isNumber', 'isString', 'isSymbol', 'isUndefined']
  const more = ['isRegExp', 'isObject', 'isDate', 'isError', 'isFunction', 'isPrimitive', 'isDeepStrictEqual', 'stripVTControlCharacters', 'toUSVString']
  const pure = Object.fromEntries([...legacy, ...more].filter((k) => typeof nodeUtil[k] === 'function').map((k) => [k, nodeUtil[k]]))
  return {
    ...pure,
    format: (...args) => nodeUtil.formatWithOptions({ customInspect: false }, ...args),
    formatWithOptions: (options, ...args) => nodeUtil.formatWithOptions(noCustom(options), ...args),
    inspect,
    promisify,
    callbackify: (fn) => nodeUtil.callbackify(fn),
    inherits: (ctor, superCtor) => {
      Object.defineProperty(ctor, 'super_', { value: superCtor, writable: true, configurable: true })
      Object.setPrototypeOf(ctor.prototype, superCtor.prototype)
    },
    deprecate: (fn) => fn,
    debuglog: () => Object.assign(() => undefined, { enabled: false }),
    types: { ...nodeUtil.types },
    TextEncoder,
    TextDecoder
  }
}

const makePath = () => {
  const posix = nodePath.posix
  const resolve = (...parts) => posix.resolve('/', ...parts)
  const p = {
    ...Object.fromEntries(
      ['normalize', 'isAbsolute', 'join', 'dirname', 'basename', 'extname', 'format', 'parse', 'toNamespacedPath'].map((k) => [k, posix[k]])
    ),
    resolve,
    relative: (from, to) => posix.relative(resolve(from), resolve(to)),
    sep: '/',
    delimiter: ':'
  }
  p.posix = p
  return p
}

/** The built-ins, by name (with and without `node:`); `evaluateEvents()` loads events.js in the Compartment. */
const makeBuiltins = (globals, evaluateEvents) => {
  const assert = require('node:assert')
  const strict = require('node:assert/strict')
  const { setTimeout: delay, setImmediate: soon } = globals
  const promises = {
    setTimeout: (ms, value) => new Promise((resolve) => delay(() => resolve(value), ms)),
    setImmediate: (value) => new Promise((resolve) => soon(() => resolve(value)))
  }
  const timers = ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate'].map((k) => [k, globals[k]])
  const factories = {
    assert: () => assert,
    'assert/strict': () => strict,
    util: () => harden(makeUtil()),
    path: () => harden(makePath()),
    'path/posix': () => harden(makePath()),
    buffer: () => harden({ Buffer: globals.Buffer, atob: globals.atob, btoa: globals.btoa, kMaxLength: require('node:buffer').kMaxLength }),
    url: () => harden({ URL: globals.URL, URLSearchParams: globals.URLSearchParams }),
    timers: () => harden({ ...Object.fromEntries(timers), promises }),
    'timers/promises': () => harden(promises),
    events: evaluateEvents
  }
  const made = new Map()
  const names = Object.keys(factories)
  const has = (spec) => typeof spec === 'string' && Object.hasOwn(factories, spec.replace(/^node:/, ''))
  const get = (spec) => {
    const name = spec.replace(/^node:/, '')
    if (!made.has(name)) made.set(name, factories[name]())
    return made.get(name)
  }
  return { has, get, names }
}

module.exports = { makeBuiltins }
