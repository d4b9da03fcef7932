// The console output of a test run, kept per top-level test so the agent sees each test's output
// beside its result (see main.cjs). The output never counts toward the result: the reporter only
// attaches it to the signed lines it sends anyway, as text.
//
// Whatever the repository's code prints goes to the owner of the moment: the top-level test that
// started last (or whose `describe` body is registering its tests), or the file itself before any
// test starts and after its owner was reported. Each owner keeps at most `perTest` characters and
// the run at most `total`; what is cut is counted and marked where it was cut.
'use strict'
/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS on purpose, loaded by main.cjs before any loader */
const util = require('node:util')

const FILE = Symbol('file')

/** A new output store: `write` from the console, `take(name)` once per reported test, `rest()` at the end. */
const makeOutput = ({ perTest, total }) => {
  const kept = new Map()
  const taken = new Set()
  let owner = FILE
  let used = 0
  const entry = (key) => {
    let e = kept.get(key)
    if (e === undefined) {
      e = { text: '', dropped: 0 }
      kept.set(key, e)
    }
    return e
  }
  const write = (text) => {
    const e = entry(owner === FILE || taken.has(owner) ? FILE : owner)
    const room = Math.max(0, Math.min(perTest - e.text.length, total - used))
    const keep = text.length <= room ? text : text.slice(0, room)
    e.text += keep
    used += keep.length
    e.dropped += text.length - keep.length
  }
  const show = (e) => (e === undefined ? '' : e.dropped === 0 ? e.text : `${e.text}\n[output truncated: ${e.dropped} more characters not shown]\n`)
  const take = (name) => {
    taken.add(name)
    const e = kept.get(name)
    kept.delete(name)
    return show(e)
  }
  // The file's own output, then any kept under a name never reported (a subtest registered late).
  const rest = () => [FILE, ...[...kept.keys()].filter((k) => k !== FILE)].map((k) => show(kept.get(k))).join('')
  const begin = (name) => {
    owner = name
  }
  return { write, take, rest, begin, current: () => owner, FILE }
}

/**
 * The console of the repository's code: it prints to the run's stdout and stderr (the host caps
 * them) and to `output`, never calling the code's custom inspectors (`customInspect: false`).
 */
const makeConsole = (output, stdout, stderr) => {
  const format = (args) => `${util.formatWithOptions({ customInspect: false, depth: 4, colors: false }, ...args)}\n`
  const writer =
    (stream) =>
    (...args) => {
      const text = format(args)
      output.write(text)
      stream.write(text)
    }
  const [out, err] = [writer(stdout), writer(stderr)]
  const counts = new Map()
  const timers = new Map()
  const label = (l) => (l === undefined ? 'default' : String(l))
  return {
    log: out,
    info: out,
    debug: out,
    dir: out,
    dirxml: out,
    table: out,
    group: out,
    groupCollapsed: out,
    groupEnd: () => undefined,
    warn: err,
    error: err,
    trace: (...args) => err('Trace:', ...args),
    assert: (ok, ...args) => {
      if (!ok) err('Assertion failed', ...args)
    },
    count: (l) => {
      counts.set(label(l), (counts.get(label(l)) ?? 0) + 1)
      out(`${label(l)}: ${counts.get(label(l))}`)
    },
    countReset: (l) => counts.delete(label(l)),
    time: (l) => timers.set(label(l), Date.now()),
    timeLog: (l, ...args) => out(`${label(l)}: ${Date.now() - (timers.get(label(l)) ?? Date.now())}ms`, ...args),
    timeEnd: (l) => {
      out(`${label(l)}: ${Date.now() - (timers.get(label(l)) ?? Date.now())}ms`)
      timers.delete(label(l))
    }
  }
}

/** node:test's name of a test: the name given, else the function's, else `<anonymous>`. */
const nameOf = (args) => {
  if (typeof args[0] === 'string') return args[0]
  const fn = args.find((a) => typeof a === 'function')
  return (fn && fn.name) || '<anonymous>'
}

/**
 * The `node:test` the test file gets: the real runner, whose test and suite functions make the
 * output's owner the top-level test they belong to while it runs (or registers its subtests).
 */
const wrapRunner = (test, output) => {
  let registering
  const bind = (owner, fn, suite) => {
    const bound = function (...args) {
      const previous = registering
      if (suite) registering = owner
      output.begin(owner)
      try {
        return Reflect.apply(fn, this, args)
      } finally {
        if (suite) registering = previous
      }
    }
    Object.defineProperty(bound, 'length', { value: fn.length })
    Object.defineProperty(bound, 'name', { value: fn.name })
    return bound
  }
  const wrap = (register, suite) =>
    function (...args) {
      const owner = registering === undefined ? nameOf(args) : registering
      const at = args.findIndex((a) => typeof a === 'function')
      if (at !== -1) args[at] = bind(owner, args[at], suite)
      return Reflect.apply(register, this, args)
    }
  const withVariants = (register, suite) => {
    const wrapped = wrap(register, suite)
    for (const v of ['skip', 'todo', 'only']) if (typeof register[v] === 'function') wrapped[v] = wrap(register[v], suite)
    return wrapped
  }
  const runner = withVariants(test, false)
  runner.test = runner
  runner.it = withVariants(test.it, false)
  runner.describe = withVariants(test.describe, true)
  runner.suite = withVariants(test.suite || test.describe, true)
  for (const key of Object.keys(test)) if (!Object.hasOwn(runner, key)) Object.defineProperty(runner, key, Object.getOwnPropertyDescriptor(test, key))
  return runner
}

module.exports = { makeConsole, makeOutput, wrapRunner }
