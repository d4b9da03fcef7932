/**
 * Each guard on its own: the other guards are switched off where they would mask the one under
 * test (mostly the permission model, which refuses child processes and paths first). Limits are
 * tight (2 s, 32 processes, 64 KB of output) so these never load a shared machine.
 */
import * as fs from 'node:fs'
import * as net from 'node:net'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Sandbox.js'
import { processesWith, runScript, tight, without } from './helpers.js'

const p = _.probe()
const has = (...gs: _.Guard[]) => gs.every((g) => p.available.includes(g))

describe('Sandbox', () => {
  it('probes the machine and describes the result', () => {
    expect(p.available).toContain('timeout')
    expect(p.available).toContain('outputCap')
    expect(_.describeProbe(p)).toMatch(/^sandbox: /)
  })

  it('runs a script with a clean environment and reports its exit', async () => {
    const r = await runScript('console.log(JSON.stringify(Object.keys(process.env).sort())); process.exit(3)', p.available)
    expect(r.exitCode).toBe(3)
    expect(JSON.parse(r.stdout.trim())).toEqual(['HOME', 'LANG', 'MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_', 'NODE_ENV', 'PATH', 'TMPDIR'])
    expect(r.guards).toEqual(p.available)
  })

  it('degrades without the tools: no namespaces, no rlimits, no uid, and says which are missing', () => {
    const bare: _.Probe = {
      available: ['permission', 'timeout', 'outputCap'],
      missing: [{ guard: 'network', reason: 'util-linux `unshare` not found' }],
      tools: { unshare: undefined, prlimit: undefined, setpriv: undefined, timeout: undefined, mount: undefined, pivotRoot: undefined },
      userNamespace: false
    }
    expect(_.describeProbe(bare)).toContain('MISSING: network (util-linux `unshare` not found)')
    const options = { writeDir: '/w', readPaths: [], script: '/w/t.js', nodeArgs: [], limits: tight }
    const cmd = _.commandLine(options, new Set(_.allGuards), 1 << 20, bare)
    expect(cmd[0]).toBe(process.execPath)
    expect(cmd).toContain('--experimental-permission')
  })

  it.runIf(has(..._.allGuards))('with every guard, wraps node as unshare > timeout > prlimit > setpriv > node [needs SWE sandbox guards]', () => {
    const cmd = _.commandLine({ writeDir: '/w', readPaths: [], script: '/w/t.js', nodeArgs: [], limits: tight }, new Set(p.available), 1 << 20, p)
    const order = ['unshare', 'timeout', 'prlimit', 'setpriv', process.execPath].map((tool) => cmd.findIndex((c) => c.endsWith(tool)))
    expect(order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1]!))).toBe(true)
  })

  it.runIf(has('timeout'))('timeout: kills an infinite loop [needs SWE sandbox guards]', async () => {
    const r = await runScript('for (;;) {}', ['timeout'])
    expect(r.timedOut).toBe(true)
    expect(r.exitCode).not.toBe(0)
  })

  it.runIf(has('outputCap'))('outputCap: kills a flood of output and keeps at most the cap [needs SWE sandbox guards]', async () => {
    const r = await runScript("const s = 'x'.repeat(1 << 16); for (let i = 0; i < 16384; i++) require('fs').writeSync(1, s)", ['timeout', 'outputCap'])
    expect(r.outputExceeded).toBe(true)
    expect(r.timedOut).toBe(false)
    expect(r.stdout.length + r.stderr.length).toBeLessThanOrEqual(tight.maxOutputBytes)
  })

  it.runIf(has('permission'))('permission: refuses reads and writes outside the work directory, and child processes [needs SWE sandbox guards]', async () => {
    const dir = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-secret-'))
    const secret = path.join(dir, 'secret.txt')
    fs.writeFileSync(secret, 'TOP-SECRET', { mode: 0o644 })
    fs.chmodSync(dir, 0o777)
    try {
      const code = [
        "const fs = require('fs')",
        `try { console.log(fs.readFileSync(${JSON.stringify(secret)}, 'utf8')) } catch (e) { console.log('read', e.code) }`,
        `try { fs.writeFileSync(${JSON.stringify(path.join(dir, 'owned.txt'))}, 'x'); console.log('WROTE') } catch (e) { console.log('write', e.code) }`,
        "try { require('child_process').spawnSync('/bin/true'); console.log('SPAWNED') } catch (e) { console.log('spawn', e.code) }",
        "try { new (require('worker_threads').Worker)('1', { eval: true }); console.log('WORKER') } catch (e) { console.log('worker', e.code) }"
      ].join('\n')
      const r = await runScript(code, ['permission', 'timeout'])
      expect(r.stdout).not.toContain('TOP-SECRET')
      expect(r.stdout).toContain('read ERR_ACCESS_DENIED')
      expect(r.stdout).toContain('write ERR_ACCESS_DENIED')
      expect(r.stdout).toContain('spawn ERR_ACCESS_DENIED')
      expect(r.stdout).toContain('worker ERR_ACCESS_DENIED')
      expect(fs.existsSync(path.join(dir, 'owned.txt'))).toBe(false)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.runIf(has('network'))('network: a connection to a listener on 127.0.0.1 never arrives [needs SWE sandbox guards]', async () => {
    let connections = 0
    const server = net.createServer((s) => {
      connections++
      s.destroy()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const port = (server.address() as net.AddressInfo).port
    try {
      const code = `require('net').connect(${port}, '127.0.0.1').on('connect', () => console.log('CONNECTED')).on('error', (e) => console.log('NETERR', e.code))`
      const r = await runScript(code, without('permission'))
      expect(r.stdout).toContain('NETERR')
      expect(r.stdout).not.toContain('CONNECTED')
      expect(connections).toBe(0)
    } finally {
      server.close()
    }
  })

  /** Listens on a Unix socket at `where` (a path, or `\0name` for the abstract namespace) that anyone may connect to. */
  const socketServer = async (where: string): Promise<{ readonly connections: () => number; readonly close: () => void }> => {
    let n = 0
    const server = net.createServer((c) => {
      n++
      c.end('HELLO-FROM-HOST')
    })
    await new Promise<void>((resolve) => server.listen(where, resolve))
    if (!where.startsWith('\0')) fs.chmodSync(where, 0o777)
    return { connections: () => n, close: () => server.close() }
  }
  const connectTo = (where: string) =>
    `require('net').connect(${JSON.stringify(where)}).on('data', (d) => console.log('GOT', String(d))).on('error', (e) => console.log('SOCKERR', e.code))`

  it.runIf(has('mountNamespace', 'network'))(
    'mount namespace: a Unix socket at a host path is unreachable, with every guard on and with this guard alone [needs SWE sandbox guards]',
    async () => {
      const dir = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-socket-'))
      fs.chmodSync(dir, 0o777)
      const where = path.join(dir, 'host.sock')
      const server = await socketServer(where)
      try {
        for (const guards of [p.available, ['mountNamespace', 'pidNamespace', 'timeout', 'outputCap'] as const]) {
          const r = await runScript(connectTo(where), guards)
          expect(r.stdout, guards.join()).toContain('SOCKERR ENOENT')
          expect(r.stdout).not.toContain('HELLO-FROM-HOST')
        }
        expect(server.connections()).toBe(0)
        // The canary: without the mount namespace the same code does reach the socket (this test bites).
        const open = await runScript(connectTo(where), ['timeout', 'outputCap'])
        expect(open.stdout).toContain('GOT HELLO-FROM-HOST')
      } finally {
        server.close()
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  )

  it.runIf(has('network'))('network: an abstract Unix socket of the host is unreachable [needs SWE sandbox guards]', async () => {
    const where = `\0mtrl-swe-test-${process.pid}-${Date.now()}`
    const server = await socketServer(where)
    try {
      const r = await runScript(connectTo(where), without('permission'))
      expect(r.stdout).toContain('SOCKERR')
      expect(r.stdout).not.toContain('HELLO-FROM-HOST')
      expect(server.connections()).toBe(0)
    } finally {
      server.close()
    }
  })

  it.runIf(has('mountNamespace'))(
    'mount namespace: the run sees a read-only root holding only the system, its own directory, /proc and an empty /.old [needs SWE sandbox guards]',
    async () => {
      const code = [
        "const fs = require('fs')",
        "console.log('ROOT', fs.readdirSync('/').filter((n) => !['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'].includes(n)).sort().join(','))",
        "console.log('ETC', fs.existsSync('/etc/hostname'), 'RUN', fs.existsSync('/run'), 'HOME', fs.existsSync('/root') || fs.existsSync('/home'))",
        "for (const p of ['/x', '/usr/x', '/tmp/x']) { try { fs.writeFileSync(p, 'x'); console.log('WROTE', p) } catch (e) { console.log('NOWRITE', p, e.code) } }",
        "fs.writeFileSync('own.txt', 'ok'); console.log('OWN', fs.readFileSync('own.txt', 'utf8'))"
      ].join('\n')
      const r = await runScript(code, without('permission'))
      const top = path.resolve(tmpdir()).split(path.sep)[1]
      expect(r.stdout).toContain(`ROOT ${['.old', 'proc', top, 'usr'].sort().join(',')}`)
      expect(r.stdout).toContain('ETC false RUN false HOME false')
      expect(r.stdout).not.toContain('WROTE')
      expect(r.stdout).toContain('OWN ok')
    }
  )

  it.runIf(has('rlimits'))('rlimits: a 10 GB allocation fails fast [needs SWE sandbox guards]', async () => {
    const code =
      "const a = []; try { for (let i = 0; i < 40; i++) a.push(new ArrayBuffer(256 * 1024 * 1024)); console.log('ALLOCATED') } catch (e) { console.log('ALLOCFAIL', e.message) }"
    const r = await runScript(code, without('permission'))
    // Refused as the code sees it, or (the first 256 MB fill the limit, leaving the garbage
    // collector no room) Node dies of its memory limit.
    expect(r.stdout.includes('ALLOCFAIL') || _.memoryExceeded(r)).toBe(true)
    expect(r.stdout).not.toContain('ALLOCATED')
    expect(r.timedOut).toBe(false)
  })

  it.runIf(has('rlimits'))('rlimits: files are capped at maxFileMb [needs SWE sandbox guards]', async () => {
    const code =
      "const fs = require('fs'); process.on('SIGXFSZ', () => {}); try { fs.writeFileSync('big.bin', Buffer.alloc(4 << 20)) } catch (e) { console.log('FSIZE', e.code) }; console.log(fs.statSync('big.bin').size)"
    const r = await runScript(code, without('permission'))
    expect(r.stdout).toContain('FSIZE EFBIG')
  })

  it.runIf(has('rlimits', 'uid', 'pidNamespace'))(
    'rlimits + pid namespace: a fork bomb is bounded and leaves no process behind [needs SWE sandbox guards]',
    async () => {
      const marker = `mtrl-swe-forkbomb-${process.pid}-${Date.now()}`
      const code = [
        "const { spawn } = require('child_process')",
        'let ok = 0, failed = 0',
        `for (let i = 0; i < 200; i++) { try { const c = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', ${JSON.stringify(marker)}], { detached: true, stdio: 'ignore' }); c.on('error', () => failed++); c.unref(); ok++ } catch (e) { failed++ } }`,
        "setTimeout(() => console.log('spawned', ok, 'failed', failed), 300)"
      ].join('\n')
      const r = await runScript(code, without('permission'))
      // The marker is an ignored argument, only there to find the processes in /proc.
      expect(processesWith(marker)).toEqual([])
      const m = /spawned \d+ failed (\d+)/.exec(r.stdout)
      expect(m).not.toBeNull()
      expect(Number(m![1])).toBeGreaterThan(100)
    }
  )

  it.runIf(has('pidNamespace'))('pid namespace: a detached grandchild dies with the run [needs SWE sandbox guards]', async () => {
    const marker = `mtrl-swe-orphan-${process.pid}-${Date.now()}`
    const code = `require('child_process').spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', ${JSON.stringify(marker)}], { detached: true, stdio: 'ignore' }).unref(); console.log('started')`
    const r = await runScript(code, without('permission'))
    expect(r.stdout).toContain('started')
    expect(processesWith(marker)).toEqual([])
  })

  it.runIf(has('uid'))('uid: the code runs as an unprivileged, fresh uid and cannot write into root-owned directories [needs SWE sandbox guards]', async () => {
    const dir = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-rootonly-'))
    fs.chmodSync(dir, 0o755)
    try {
      const code = `console.log('uid', process.getuid()); try { require('fs').writeFileSync(${JSON.stringify(path.join(dir, 'x'))}, 'x'); console.log('WROTE') } catch (e) { console.log('write', e.code) }`
      const r = await runScript(code, without('permission', 'mountNamespace'))
      const uid = Number(/uid (\d+)/.exec(r.stdout)?.[1])
      expect(uid).toBeGreaterThanOrEqual(1 << 20)
      expect(r.stdout).toContain('write EACCES')
      expect(fs.existsSync(path.join(dir, 'x'))).toBe(false)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('builds the command line from the guards', () => {
    const baseline = { addressSpaceMb: 650.2, heapMb: 3.1 }
    const options = { writeDir: '/w', readPaths: ['/r.mjs'], script: '/w/t.js', nodeArgs: [], limits: tight, baseline }
    const bare = _.commandLine(options, new Set(), undefined, p)
    expect(bare).toEqual([process.execPath, '--no-warnings', '--max-old-space-size=260', '/w/t.js'])
    const full = _.commandLine(options, new Set(p.available), 1 << 20, p).join(' ')
    if (has('permission')) expect(full).toContain('--experimental-permission --allow-fs-write=/w --allow-fs-read=/w --allow-fs-read=/r.mjs')
    if (has('rlimits', 'uid')) expect(full).toContain('--nproc=32')
    if (has('rlimits')) expect(full).toContain(`--as=${(651 + 256) * 1024 * 1024} `)
  })
})
