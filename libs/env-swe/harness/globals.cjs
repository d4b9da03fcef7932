// The globals of the repository's Compartment beyond SES's shared intrinsics (see main.cjs and
// docs/decisions/0015-swe-sandbox-for-real-code.md). Every value is hardened (frozen, with what it
// reaches) before the code sees it, and none is a Node object the harness itself relies on:
//
// - intrinsics SES keeps off new compartments: `Float32Array`/`Float64Array` (SES's concern is a
//   NaN side channel between mutually suspicious compartments; there is one here), `Intl`
//   (hardened on first use), `WeakRef`, `FinalizationRegistry`;
// - pure Web APIs of Node: `URL`, `URLSearchParams`, `structuredClone`, `atob`, `btoa`, `Buffer`
//   (not pooled and zero-filled: the harness sets `Buffer.poolSize = 0`, the run
//   `--zero-fill-buffers`, so no buffer shares memory with the harness's);
// - tamed timers: callbacks must be functions (no strings to evaluate), the handles are plain
//   frozen objects (not Node's `Timeout`, whose prototype the harness's own timers share), and
//   delays are clamped to the run's time limit, past which the run is killed anyway; when the
//   last test (the tripwire) starts, every timer is unref'd (`release`), so none keeps the run
//   alive past its tests.
'use strict'

/* global harden */

/** The tamed timers, bounded by `limitMs`. */
const makeTimers = (limitMs) => {
  const live = new Map()
  let next = 1
  let released = false
  const callable = (fn) => {
    if (typeof fn !== 'function') throw new TypeError('the callback must be a function (code strings are not evaluated)')
    return fn
  }
  const delay = (ms) => {
    const n = Number(ms)
    return Number.isFinite(n) && n > 0 ? Math.min(n, limitMs) : 0
  }
  const handle = (id, timer) =>
    harden({
      ref() {
        if (!released) timer.ref()
        return this
      },
      unref() {
        timer.unref()
        return this
      },
      hasRef: () => timer.hasRef(),
      refresh() {
        if (typeof timer.refresh === 'function') timer.refresh()
        return this
      },
      [Symbol.toPrimitive]: () => id
    })
  const schedule = (start, stop, repeat) =>
    function (fn, ms, ...args) {
      callable(fn)
      const id = next++
      const timer = start(() => {
        if (!repeat) live.delete(id)
        fn(...args)
      }, delay(ms))
      if (released) timer.unref()
      live.set(id, { timer, stop })
      return handle(id, timer)
    }
  const clear = (h) => {
    let id
    try {
      id = Number(h)
    } catch {
      return
    }
    const entry = live.get(id)
    if (entry !== undefined) {
      entry.stop(entry.timer)
      live.delete(id)
    }
  }
  const immediate = (fn, ...args) => schedule((f) => setImmediate(f), clearImmediate, false)(fn, 0, ...args)
  /** After the last test: no timer keeps the run alive any more, so it ends (and reports its end). */
  const release = () => {
    released = true
    for (const { timer } of live.values()) timer.unref()
  }
  const timers = {
    setTimeout: schedule(setTimeout, clearTimeout, false),
    setInterval: schedule((f, ms) => setInterval(f, Math.max(1, ms)), clearInterval, true),
    setImmediate: immediate,
    clearTimeout: clear,
    clearInterval: clear,
    clearImmediate: clear,
    queueMicrotask: (fn) => queueMicrotask(callable(fn))
  }
  return { timers, release }
}

/**
 * Every extra global, hardened, and `release` of the timers. `limitMs`: the run's time limit.
 * `lazy` are getters to define on the compartment's global: hardening `Intl` costs 10-20 ms,
 * so it is done on first use.
 */
const extraGlobals = (limitMs) => {
  const { timers, release } = makeTimers(limitMs)
  let intl
  const lazy = harden({
    Intl: () => {
      if (intl === undefined) intl = harden(Intl)
      return intl
    }
  })
  const g = {
    ...timers,
    Float32Array,
    Float64Array,
    URL,
    URLSearchParams,
    structuredClone,
    atob,
    btoa,
    Buffer
  }
  for (const name of ['Float16Array', 'WeakRef', 'FinalizationRegistry']) if (typeof globalThis[name] === 'function') g[name] = globalThis[name]
  return { globals: harden(g), lazy, release }
}

module.exports = { extraGlobals, makeTimers }
