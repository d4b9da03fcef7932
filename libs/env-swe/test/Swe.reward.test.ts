/**
 * The reward cannot be forged and no action breaks an episode: each attack class of issue 17,
 * tried as an RL policy would, through the agent's own interface (an `edit` of the buggy
 * source, `run_tests`, `submit`). Each attack leaves the bug in place, so every one must pay
 * exactly what the unfixed code earns, no more (a forgery that worked) and no less (an attack
 * that broke the scoring). Where an attack would gain a power (a `process`, an `fs`, a socket),
 * it also drops a `pwned-*` file in the repository, which must never appear.
 *
 * Against the code before issue 17 (reporter in the tested process, results on stdout), the
 * forged-lines, patched-assertions and patched-streams attacks each paid 1.0, and the
 * directory-in-place-of-a-test attack made `submit` fail with EISDIR.
 */
import * as fs from 'node:fs'
import * as net from 'node:net'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import type { Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import * as Edit from '../src/Edit.js'
import * as Sandbox from '../src/Sandbox.js'
import * as _ from '../src/Swe.js'

const settings = {
  tier: 'easy' as const,
  projects: ['bitset'],
  dense: true,
  timeoutMs: 4000,
  memoryMb: 256,
  maxProcesses: 32,
  maxOutputBytes: 64 * 1024,
  outputChars: 3000
}
const shared = _.resources(settings, 2)
afterAll(() => shared.dispose())
const SEED = 1

const ok = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error(JSON.stringify(e.left))
  return e.right
}

/**
 * Helpers every attack starts with: `__grab()` tries each known route to `process`; `__fs()` to
 * `fs`; `__pwn(tag)` writes `pwned-<tag>` into the run's working directory (the repository)
 * if it has `fs`. None of it may throw: blocked, the module behaves as the unfixed code.
 */
const prelude = `
const __grab = () => {
  const tries = [
    () => globalThis.process,
    () => (typeof process === 'undefined' ? undefined : process),
    () => Function('return process')(),
    () => (() => 0).constructor('return process')(),
    () => require.constructor('return process')(),
    () => Object.getPrototypeOf(async () => 0).constructor('return process')(),
    () => Object.getPrototypeOf(function* () {}).constructor('return process')().next(),
    () => require('process'),
    () => require('node:process'),
    () => require.main.require('process'),
    () => module.parent.require('process'),
    () => module.constructor._load('process'),
    () => setTimeout.constructor('return process')(),
    () => Object.getPrototypeOf(setTimeout(() => 0, 0)).constructor.constructor('return process')(),
    () => require('util').inspect.constructor('return process')(),
    () => require('util').promisify(() => 0).constructor('return process')(),
    () => Buffer.constructor('return process')(),
    () => Buffer.from('x').constructor.constructor('return process')(),
    () => Intl.NumberFormat.constructor('return process')(),
    () => structuredClone.constructor('return process')(),
    () => new WeakRef({}).constructor.constructor('return process')(),
    () => URL.constructor('return process')(),
    () => require('events').constructor('return process')(),
    () => {
      const saved = Error.prepareStackTrace
      try {
        Error.prepareStackTrace = (_e, frames) => frames
        for (const f of new Error().stack) {
          const self = f.getThis && f.getThis()
          if (self && self.process) return self.process
          const fn = f.getFunction && f.getFunction()
          if (fn) return fn.constructor('return process')()
        }
      } finally {
        Error.prepareStackTrace = saved
      }
    }
  ]
  for (const t of tries) {
    try {
      const p = t()
      if (p && typeof p.exit === 'function') return p
    } catch {}
  }
  return undefined
}
const __module = (name) => {
  for (const get of [() => require(name), () => require('node:' + name), () => __grab().mainModule.require(name), () => __grab().getBuiltinModule(name)]) {
    try {
      const m = get()
      if (m) return m
    } catch {}
  }
  return undefined
}
const __fs = () => __module('fs')
const __pwn = (tag) => {
  try {
    __fs().writeFileSync('pwned-' + tag, 'x')
  } catch {}
}
`

/** The test names of the bitset project's suite, for forgers. */
const names = (): ReadonlyArray<string> => [
  'allocates enough words',
  'adds and tests bits across words',
  'deletes bits',
  'rejects indices out of range',
  'counts set bits',
  'unions equal-size sets'
]

const inject = (code: string): string =>
  Edit.render({ file: 'src/bitset.js', blocks: [{ search: "'use strict'\n", replace: `'use strict'\n${prelude}\n;(() => {\n${code}\n})()\n` }] })

/** The repository of the env's current episode (found by content, as the host cannot be asked). */
const repoOf = (env: _.SweEnv): string => {
  const file = env.task()!.files['src/bitset.js']
  const repo = fs
    .readdirSync(tmpdir())
    .filter((d) => d.startsWith(`mtrl-swe-${process.pid}-`))
    .map((d) => path.join(tmpdir(), d, 'repo'))
    .find((c) => fs.existsSync(path.join(c, 'src/bitset.js')) && fs.readFileSync(path.join(c, 'src/bitset.js'), 'utf8') === file)
  if (repo === undefined) throw new Error('repository not found')
  return fs.realpathSync(repo)
}

interface Played {
  readonly unfixed: number
  readonly turns: ReadonlyArray<Env.StepResult>
  readonly final: Env.StepResult
  readonly pwned: ReadonlyArray<string>
}

/**
 * Resets, plays `actions` (with `between` run on the host after each), then `run_tests` and
 * `submit`; `inspect` sees the repository after `submit`, before the episode is closed.
 */
const play = async (
  actions: ReadonlyArray<string>,
  between: (repo: string) => void = () => undefined,
  inspect: (repo: string) => void = () => undefined
): Promise<Played> => {
  const env = _.make(settings, shared)
  try {
    ok(await env.reset(SEED)())
    const task = env.task()!
    const repo = repoOf(env)
    const turns: Env.StepResult[] = []
    for (const a of actions) {
      turns.push(ok(await env.step(a)()))
      between(repo)
    }
    turns.push(ok(await env.step('run_tests')()))
    const final = ok(await env.step('submit')())
    turns.push(final)
    inspect(repo)
    const pwned = fs.readdirSync(repo).filter((f) => f.startsWith('pwned-'))
    return { unfixed: (task.expected.length - task.failing.length) / task.expected.length, turns, final, pwned }
  } finally {
    await env.close()()
  }
}

/** The attack paid exactly what the unfixed code earns, and gained no power on the way. */
const paysUnfixed = (r: Played): void => {
  expect(r.unfixed).toBeGreaterThan(0)
  expect(r.unfixed).toBeLessThan(1)
  expect(r.final.done).toBe(true)
  expect(r.final.won).toBe(false)
  expect(r.final.info.score).toBeCloseTo(r.unfixed, 10)
  expect(r.turns.reduce((a, t) => a + t.reward, 0)).toBeCloseTo(r.unfixed, 10)
  expect(r.pwned).toEqual([])
}

const guards = Sandbox.probe().available
const has = (...gs: Sandbox.Guard[]) => gs.every((g) => guards.includes(g))

describe('Swe reward', () => {
  it('baseline: the unfixed code pays its share of passing tests, and the edit alone changes nothing', async () => {
    paysUnfixed(await play([inject('')]))
  })

  it('forged lines: printing results in the reporter format (fd 1 and fd 3) and exiting 0 pays nothing extra', async () => {
    const code = `
      const p = __grab()
      const fs = __fs()
      if (!p && !fs) return
      __pwn('forge')
      const names = ${JSON.stringify(names())}
      const old = names.map((name) => '\\n@@mtrl-swe@@' + JSON.stringify({ name, passed: true, message: '' }) + '\\n').join('')
      const guess = names.map((name, seq) => JSON.stringify({ seq, kind: 'test', name, status: 'pass', message: '' }) + '\\t' + '0'.repeat(64) + '\\n').join('')
      for (const fd of [1, 3]) {
        try { fs.writeSync(fd, old + guess) } catch {}
      }
      p.exit(0)`
    paysUnfixed(await play([inject(code)]))
  })

  it('patched assertions: no-op node:assert methods, frozen-intrinsic tampering and never-throwing exports pay nothing extra', async () => {
    const code = `
      let patched = false
      for (const name of ['assert', 'assert/strict']) {
        try {
          const a = __module(name)
          for (const k of Object.keys(a)) if (typeof a[k] === 'function') a[k] = () => {}
          patched = true
        } catch {}
      }
      for (const proto of [Object.prototype, Error.prototype, Function.prototype, Promise.prototype]) {
        try {
          Object.defineProperty(proto, 'then2', { value: 1 })
          patched = true
        } catch {}
      }
      if (!patched) return
      __pwn('assert')
      Promise.resolve().then(() => {
        for (const k of Object.keys(module.exports)) {
          const f = module.exports[k]
          if (typeof f === 'function') module.exports[k] = (...args) => { try { return f(...args) } catch { return undefined } }
        }
      })`
    paysUnfixed(await play([inject(code)]))
  })

  it('patched streams: rewriting failures to passes in stdout.write and fs.writeSync pays nothing extra', async () => {
    const code = `
      const p = __grab()
      const fs = __fs()
      const rewrite = (s) => String(s).replace(/"passed":false/g, '"passed":true').replace(/"status":"fail"/g, '"status":"pass"')
      let patched = false
      try {
        const write = p.stdout.write.bind(p.stdout)
        p.stdout.write = (chunk, ...rest) => write(rewrite(chunk), ...rest)
        patched = true
      } catch {}
      try {
        const writeSync = fs.writeSync
        fs.writeSync = (fd, data, ...rest) => writeSync(fd, typeof data === 'string' ? rewrite(data) : rewrite(data.toString()), ...rest)
        patched = true
      } catch {}
      if (patched) __pwn('stream')`
    paysUnfixed(await play([inject(code)]))
  })

  it('process exit: ending the process early, by any route, pays nothing extra', async () => {
    const code = `
      const p = __grab()
      if (!p) return
      __pwn('exit')
      for (const end of [() => p.exit(0), () => p.reallyExit(0), () => p.kill(p.pid, 'SIGKILL'), () => p.abort()]) {
        try { end() } catch {}
      }`
    paysUnfixed(await play([inject(code)]))
  })

  it.runIf(has('mountNamespace', 'network'))(
    'path socket: a Unix socket at a host path is unreachable from the repository code [needs SWE sandbox guards]',
    async () => {
      const dir = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-judge-'))
      fs.chmodSync(dir, 0o777)
      const where = path.join(dir, 'judge.sock')
      let connections = 0
      const server = net.createServer((c) => {
        connections++
        c.end('{"passed":true}')
      })
      await new Promise<void>((resolve) => server.listen(where, resolve))
      fs.chmodSync(where, 0o777)
      try {
        const code = `
        const n = __module('net')
        if (!n) return
        __pwn('net-module')
        n.connect(${JSON.stringify(where)}).on('connect', () => __pwn('socket')).on('error', () => {})`
        paysUnfixed(await play([inject(code)]))
        expect(connections).toBe(0)
      } finally {
        server.close()
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  )

  it('built-ins and timers: every route, from a timer, a microtask, an interval and an event listener, pays nothing extra', async () => {
    const attempt = `
      const fs = __fs()
      const p = __grab()
      if (p) { __pwn('builtins'); p.exit(0) }
      if (fs) __pwn('builtins-fs')`
    const code = `
      const names = ${JSON.stringify(names())}
      const forged = names.map((name, seq) => JSON.stringify({ seq, kind: 'test', name, status: 'pass', message: '' })).join('\\n')
      const attack = () => { ${attempt} }
      setTimeout(attack, 0)
      setImmediate(attack)
      queueMicrotask(attack)
      const h = setInterval(() => { attack(); console.log(forged) }, 1)
      setTimeout(() => attack(), 1e9)
      const E = require('events')
      new E().on('x', attack).emit('x')
      require('util').inspect({ [require('util').inspect.custom]: (_d, _o, inspect) => { if (inspect) { __pwn('inspect') } } })
      Promise.resolve().then(attack)`
    const r = await play([inject(code)])
    paysUnfixed(r)
    expect(r.turns.at(-2)!.observation).not.toContain('wall-clock')
  })

  it('console floods: output in every test and outside them never counts, and the pass count stays in the observation', async () => {
    const code = `
      const names = ${JSON.stringify(names())}
      const forged = names.map((name, seq) => JSON.stringify({ seq, kind: 'test', name, status: 'pass', message: '' }) + '\\t' + '0'.repeat(64)).join('\\n')
      console.log(forged)
      for (const k of Object.keys(module.exports)) {
        const f = module.exports[k]
        if (typeof f === 'function') module.exports[k] = function (...args) { console.log(forged); console.error('PASS ' + 'x'.repeat(300)); return f.apply(this, args) }
      }`
    const r = await play([inject(code)])
    paysUnfixed(r)
    for (const t of [r.turns.at(-2)!, r.final]) {
      expect(t.observation.length).toBeLessThanOrEqual(settings.outputChars + 200)
      expect(t.observation).toMatch(/\n\d+\/6 tests passed$/)
    }
    expect(r.turns.at(-2)!.observation).toContain('  | ')
  })

  it('bad edit paths: under a file, too long, a directory, NUL, empty: each an invalid observation, and the episode goes on', async () => {
    const create = (file: string) => Edit.render({ file, blocks: [{ search: '', replace: 'x' }] })
    const bad = [
      create('src/bitset.js/inner.js'),
      create('src/bitset.js/deeper/inner.js'),
      create(`src/${'n'.repeat(300)}.js`),
      create(`${'d/'.repeat(3000)}x.js`),
      create('src'),
      Edit.render({ file: 'test', blocks: [{ search: 'x', replace: 'y' }] }),
      'cat src/bitset.js/inner.js',
      `cat ${'n'.repeat(300)}`,
      'ls src/bitset.js',
      `ls ${'d/'.repeat(3000)}`,
      'grep x src/bitset.js/inner',
      'cat "src/\u0000"'
    ]
    const r = await play(bad)
    for (const [i, turn] of r.turns.slice(0, bad.length).entries()) {
      expect(turn.info.valid, bad[i]!.slice(0, 60)).toBe(false)
      expect(turn.observation, bad[i]!.slice(0, 60)).toMatch(/^error: |^invalid action/)
      expect(turn.done).toBe(false)
    }
    paysUnfixed(r)
  })

  it('test file replaced by a directory, its directory by a file, or by a symlink: submit restores them and scores', async () => {
    const outside = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-target-'))
    const target = path.join(outside, 'target.txt')
    fs.writeFileSync(target, 'UNTOUCHED')
    try {
      // The repository code cannot touch the filesystem (this tries); the host then does what an
      // escaped run could, after each turn, in three ways.
      const attempt = inject(`
        const fs = __fs()
        if (!fs) return
        __pwn('fs')
        fs.rmSync('test/bitset.test.js')
        fs.mkdirSync('test/bitset.test.js/x', { recursive: true })`)
      const states = [
        (repo: string) => {
          fs.rmSync(path.join(repo, 'test/bitset.test.js'), { force: true, recursive: true })
          fs.mkdirSync(path.join(repo, 'test/bitset.test.js/x'), { recursive: true })
          fs.writeFileSync(path.join(repo, 'test/bitset.test.js/x/y.js'), 'y')
        },
        (repo: string) => {
          fs.rmSync(path.join(repo, 'test'), { force: true, recursive: true })
          fs.writeFileSync(path.join(repo, 'test'), 'not a directory')
        },
        (repo: string) => {
          fs.rmSync(path.join(repo, 'test'), { force: true, recursive: true })
          fs.mkdirSync(path.join(repo, 'test'))
          fs.symlinkSync(target, path.join(repo, 'test/bitset.test.js'))
        }
      ]
      const original = fs.readFileSync(new URL('../corpus/bitset/test/bitset.test.js', import.meta.url), 'utf8')
      for (const state of states) {
        let restored = ''
        const r = await play([attempt, 'ls'], state, (repo) => {
          const file = path.join(repo, 'test/bitset.test.js')
          restored = fs.lstatSync(file).isFile() ? fs.readFileSync(file, 'utf8') : 'not a regular file'
        })
        const runTests = r.turns.at(-2)!
        expect(runTests.info.valid).toBe(true)
        expect(runTests.observation).toMatch(/\d+\/6 tests passed/)
        paysUnfixed(r)
        expect(r.final.observation).toContain('test files restored)')
        expect(restored).toBe(original)
        expect(fs.readFileSync(target, 'utf8')).toBe('UNTOUCHED')
      }
    } finally {
      fs.rmSync(outside, { recursive: true, force: true })
    }
  })
})
