/**
 * The environment end to end, including the adversarial suite: code the agent could write
 * (an infinite loop, a fork bomb, 10 GB of memory, writes and reads outside its directory, a
 * network connection, 1 GB of output) is put into the repository with `edit` and run with
 * `run_tests`. Each is stopped or refused (Node's powers by the Compartment first, see
 * `Harness`; each OS guard on its own in Sandbox.test.ts), the episode returns a result,
 * nothing of the run is left behind, and a fresh episode still works. Attacks on the reward
 * itself are in Swe.reward.test.ts. Limits are tight for a shared machine.
 */
import * as fs from 'node:fs'
import * as net from 'node:net'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import type { Env } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import * as Edit from '../src/Edit.js'
import * as Expert from '../src/Expert.js'
import * as Sandbox from '../src/Sandbox.js'
import * as _ from '../src/Swe.js'
import { processesWith } from './helpers.js'

const settings = { tier: 'easy' as const, projects: ['bitset'], timeoutMs: 3000, memoryMb: 256, maxProcesses: 32, maxOutputBytes: 64 * 1024, outputChars: 1500 }
const shared = _.resources(settings, 2)
afterAll(() => shared.dispose())

const ok = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error(JSON.stringify(e.left))
  return e.right
}

const inject = (code: string): string => Edit.render({ file: 'src/bitset.js', blocks: [{ search: "'use strict'\n", replace: `'use strict'\n${code}\n` }] })

/** Resets, injects `code` at the top of the source, runs the tests; returns the observation. */
const attack = async (code: string, seed = 1): Promise<{ env: _.SweEnv; result: Env.StepResult }> => {
  const env = _.make(settings, shared)
  ok(await env.reset(seed)())
  const edited = ok(await env.step(inject(code))())
  expect(edited.info.valid).toBe(true)
  const result = ok(await env.step('run_tests')())
  return { env, result }
}

const expertWins = async (seed: number): Promise<void> => {
  const env = _.make(settings, shared)
  ok(await env.reset(seed)())
  let last: Env.StepResult | undefined
  for (const a of Expert.plan(env.task()!)) last = ok(await env.step(a)())
  expect(last?.done).toBe(true)
  expect(last?.won).toBe(true)
  await env.close()()
}

const probe = Sandbox.probe()
const has = (g: Sandbox.Guard) => probe.available.includes(g)

describe('Swe', () => {
  it('starts an episode with a goal, the failing tests and the action format', async () => {
    const env = _.make(settings, shared)
    const start = ok(await env.reset(3)())
    expect(start.goal).toContain('bitset')
    expect(start.text).toContain('these fail')
    expect(start.info).toMatchObject({ valid: true, maxScore: 1 })
    expect(env.spec.name).toBe('swe/easy')
    expect(env.task()!.failing.length).toBeGreaterThan(0)
    await env.close()()
  })

  it('answers malformed actions with the usage and valid = false, leaving the state unchanged', async () => {
    const env = _.make(settings, shared)
    ok(await env.reset(3)())
    const r = ok(await env.step('rm -rf /')())
    expect(r.info.valid).toBe(false)
    expect(r.observation).toContain('unknown action')
    expect(r.observation).toContain('<<<<<<< SEARCH')
    expect(r.done).toBe(false)
    await env.close()()
  })

  it('a repository can use timers, typed arrays, assert and util, allocate 100 MB, and run_tests shows what it prints', async () => {
    const env = _.make({ ...settings, memoryMb: 512, timeoutMs: 8000 }, shared)
    ok(await env.reset(1)())
    const plan = Expert.plan(env.task()!)
    for (const a of plan.slice(0, -1)) ok(await env.step(a)())
    const code = [
      "const assert = require('assert')",
      "const util = require('node:util')",
      'const hold = []',
      'for (let i = 0; i < 100; i++) hold.push(new Float64Array(1 << 17).fill(i))',
      'assert.equal(hold.length, 100)',
      "console.log(util.format('held %d MB', hold.length), new Intl.NumberFormat('en-US').format(12345.5))",
      "setTimeout(() => console.error('a timer fired'), 1)"
    ].join('\n')
    ok(await env.step(inject(code))())
    const r = ok(await env.step('run_tests')())
    expect(r.observation).toMatch(/\n6\/6 tests passed$/)
    expect(r.observation).toContain('  | held 100 MB 12,345.5')
    expect(r.observation).toContain('  | a timer fired')
    await env.close()()
  })

  it('refuses paths that escape the repository, symlinks included', async () => {
    const env = _.make(settings, shared)
    ok(await env.reset(3)())
    const repo = await findRepo(env)
    fs.symlinkSync('/etc', path.join(repo, 'etc-link'))
    fs.symlinkSync('/etc/hostname', path.join(repo, 'host-link'))
    for (const a of ['cat ../reporter.mjs', 'cat /etc/hostname', 'cat host-link', 'ls etc-link', 'grep root etc-link', 'cat src/../../reporter.mjs']) {
      const r = ok(await env.step(a)())
      expect(r.observation, a).toMatch(/^error: .*(outside|absolute)/)
    }
    const w = ok(await env.step(Edit.render({ file: 'etc-link/evil.conf', blocks: [{ search: '', replace: 'x' }] }))())
    expect(w.observation).toMatch(/outside the repository/)
    expect(fs.existsSync('/etc/evil.conf')).toBe(false)
    await env.close()()
  })

  it.runIf(has('timeout'))('adversarial: an infinite loop is killed and the episode goes on [needs SWE sandbox guards]', async () => {
    const { env, result } = await attack('for (;;) {}')
    expect(result.observation).toContain('killed after the wall-clock limit')
    expect(result.done).toBe(false)
    const final = ok(await env.step('submit')())
    expect(final).toMatchObject({ done: true, won: false, reward: 0 })
    expect(final.info.extra).toMatchObject({ passed: 0 })
    await env.close()()
  })

  it('adversarial: a fork bomb is refused (no child_process for the repository code)', async () => {
    const { env, result } = await attack("const cp = require('child_process'); for (;;) cp.fork(__filename)")
    expect(result.observation).toMatch(/exited with/)
    expect(result.observation).toContain("Cannot find module 'child_process': the code under test can require the repository's own files")
    await env.close()()
  })

  it.runIf(has('rlimits'))('adversarial: allocating 10 GB fails inside the memory cap [needs SWE sandbox guards]', async () => {
    const { env, result } = await attack('const hog = []; for (let i = 0; i < 40; i++) hog.push(new Uint8Array(256 * 1024 * 1024))')
    expect(result.observation).not.toContain('wall-clock')
    expect(result.observation).toMatch(/allocation failed|out of memory/i)
    await env.close()()
  })

  it('adversarial: writing and reading outside the directory are refused', async () => {
    const dir = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-outside-'))
    fs.chmodSync(dir, 0o777)
    const secret = path.join(dir, 'secret.txt')
    fs.writeFileSync(secret, 'TOP-SECRET', { mode: 0o644 })
    try {
      const target = path.join(dir, 'pwned.txt')
      const w = await attack(`require('fs').writeFileSync(${JSON.stringify(target)}, 'x')`)
      expect(w.result.observation).toContain("Cannot find module 'fs': the code under test can require the repository's own files")
      expect(fs.existsSync(target)).toBe(false)
      await w.env.close()()
      const r = await attack(`throw new Error('LEAK ' + require(${JSON.stringify('../'.repeat(12) + secret.slice(1))}))`)
      expect(r.result.observation).toMatch(/Cannot find module/)
      expect(r.result.observation).not.toContain('TOP-SECRET')
      await r.env.close()()
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.runIf(has('network'))('adversarial: a network connection to a local listener never arrives [needs SWE sandbox guards]', async () => {
    let connections = 0
    const server = net.createServer((s) => {
      connections++
      s.destroy()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as net.AddressInfo).port
    try {
      const code = `require('net').connect(${port}, '127.0.0.1').on('error', (e) => { throw new Error('NETERR ' + e.code) })`
      const { env, result } = await attack(code)
      expect(connections).toBe(0)
      expect(result.observation).toMatch(/NETERR|exited with/)
      await env.close()()
    } finally {
      server.close()
    }
  })

  it.runIf(has('outputCap'))('adversarial: printing 1 GB is cut off at the output cap [needs SWE sandbox guards]', async () => {
    const { env, result } = await attack("const s = 'x'.repeat(1 << 20); for (let i = 0; i < 1024; i++) console.log(s)")
    expect(result.observation).toContain('output limit exceeded')
    expect(result.observation.length).toBeLessThan(settings.outputChars + 200)
    await env.close()()
  })

  it('after the attacks nothing of theirs runs, their directories are gone, and a fresh episode wins', async () => {
    expect(processesWith(`mtrl-swe-${process.pid}-`)).toEqual([])
    const leftovers = fs.readdirSync(tmpdir()).filter((d) => d.startsWith(`mtrl-swe-${process.pid}-`))
    expect(leftovers).toEqual([])
    await expertWins(5)
  })

  it('fails closed: without a guard, reset refuses unless guards is unsafe-best-effort, and both say so loudly', async () => {
    const lacking: Sandbox.Probe = {
      ...probe,
      available: probe.available.filter((g) => g !== 'mountNamespace'),
      missing: [...probe.missing, { guard: 'mountNamespace', reason: 'test: pretend it is missing' }]
    }
    const strict = _.resources(settings, 1, lacking)
    const unsafe = _.resources({ ...settings, guards: 'unsafe-best-effort' }, 1, lacking)
    try {
      expect(_.describeSandbox(strict)).toMatch(/^swe sandbox: MISSING GUARDS, episodes will refuse to start: mountNamespace \(test: pretend/)
      const refused = await _.make(settings, strict).reset(3)()
      expect(refused).toEqual(E.left(expect.objectContaining({ _tag: 'ResetFailed', reason: expect.stringContaining('MISSING: mountNamespace') })))
      expect(_.describeSandbox(unsafe)).toMatch(/^swe sandbox: UNSAFE, guards: 'unsafe-best-effort' runs WITHOUT mountNamespace/)
      const env = _.make({ ...settings, guards: 'unsafe-best-effort' }, unsafe)
      const start = ok(await env.reset(3)())
      expect(start.info.extra).toMatchObject({ sandbox: expect.stringMatching(/^UNSAFE: .*MISSING: mountNamespace/) })
      expect(unsafe.guards).not.toContain('mountNamespace')
      await env.close()()
      const machine = probe.missing.some((m) => m.guard !== 'timeout') ? /^swe sandbox: MISSING GUARDS/ : /^swe sandbox: all 8 guards on/
      expect(_.describeSandbox(shared)).toMatch(machine)
    } finally {
      strict.dispose()
      unsafe.dispose()
    }
  })

  it('truncates long observations with a marker', async () => {
    const env = _.make({ ...settings, outputChars: 100 }, shared)
    ok(await env.reset(3)())
    const r = ok(await env.step('cat src/bitset.js')())
    expect(r.observation).toMatch(/\[output truncated: \d+ more characters not shown\]$/)
    await env.close()()
  })

  it('errors on step before reset and after the end', async () => {
    const env = _.make(settings, shared)
    expect(await env.step('ls')()).toEqual(E.left({ _tag: 'NotStarted', env: 'swe/easy' }))
    ok(await env.reset(3)())
    ok(await env.step('submit')())
    expect(await env.step('ls')()).toEqual(E.left({ _tag: 'EpisodeOver', env: 'swe/easy' }))
    await env.close()()
  })
})

/** The repository directory of the env's episode: the workspace holding the task's files. */
async function findRepo(env: _.SweEnv): Promise<string> {
  const task = env.task()!
  const candidates = fs
    .readdirSync(tmpdir())
    .filter((d) => d.startsWith(`mtrl-swe-${process.pid}-`))
    .map((d) => path.join(tmpdir(), d, 'repo'))
  const repo = candidates.find(
    (c) => fs.existsSync(path.join(c, 'src/bitset.js')) && fs.readFileSync(path.join(c, 'src/bitset.js'), 'utf8') === task.files['src/bitset.js']
  )
  if (repo === undefined) throw new Error('repository not found')
  return fs.realpathSync(repo)
}
