import * as E from 'fp-ts/lib/Either.js'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import * as _ from '../src/LocalWorkers.js'
import { Services } from '@mtrl/testing'
import { startRedis } from './fixtures/redis.js'

const dir = mkdtempSync(join(tmpdir(), 'mtrl-local-workers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A stand-in worker: writes its pid and argv to `dir`, says it listens, and waits for SIGTERM. */
const listening = (url: string, name: string): ReadonlyArray<string> => [
  '-e',
  `require('fs').writeFileSync(${JSON.stringify(dir)} + '/' + ${JSON.stringify(name)}, JSON.stringify({ pid: process.pid, argv: process.argv, parent: process.env.PARENT, trainer: process.env.MTRL_WORKER_PARENT })); console.log('listening at ' + ${JSON.stringify(url)}); setInterval(() => {}, 1000)`
]
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('LocalWorkers', () => {
  it.runIf(Services.available('redis-server'))(
    `starts a local server and the workers (named, single-threaded when several), and stops them all ${Services.tag('redis-server')}`,
    async () => {
      const events: _.Event[] = []
      const started = await _.start({ workers: 2, command: listening, env: { PARENT: 'trainer' }, onEvent: (e) => events.push(e) })()
      if (E.isLeft(started)) throw new Error(JSON.stringify(started.left))
      const { url, workers, stop } = started.right
      expect(url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/)
      expect(workers).toBe(2)
      expect(events).toEqual([
        { _tag: 'ServerStarted', url },
        { _tag: 'WorkersStarted', count: 2 }
      ])
      const names = readdirSync(dir).sort()
      expect(names).toEqual([`local-1-${process.pid}`, `local-2-${process.pid}`])
      const info = names.map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as { pid: number; parent: string; trainer: string })
      expect(info.map((w) => w.parent)).toEqual(['trainer', 'trainer'])
      expect(info.map((w) => w.trainer)).toEqual([String(process.pid), String(process.pid)])
      expect(info.every((w) => alive(w.pid))).toBe(true)
      await stop()
      expect(info.some((w) => alive(w.pid))).toBe(false)
      for (const n of names) rmSync(join(dir, n))
    },
    60_000
  )

  it.runIf(Services.available('redis-server'))(
    `uses the server it is given and starts nothing when asked for no worker ${Services.tag('redis-server')}`,
    async () => {
      const redis = await startRedis()
      try {
        const events: _.Event[] = []
        const started = await _.start({ redis: redis.url, workers: 0, command: listening, onEvent: (e) => events.push(e) })()
        if (E.isLeft(started)) throw new Error(JSON.stringify(started.left))
        expect(started.right.url).toBe(redis.url)
        expect(events).toEqual([])
        await started.right.stop()
      } finally {
        await redis.stop()
      }
    },
    60_000
  )

  it.runIf(Services.available('redis-server'))(
    `says which worker exited before it listened, with its stderr ${Services.tag('redis-server')}`,
    async () => {
      const redis = await startRedis()
      try {
        const started = await _.start({ redis: redis.url, workers: 1, command: () => ['-e', 'process.stderr.write("no backend\\n"); process.exit(3)'] })()
        expect(started).toEqual(E.left({ _tag: 'WorkerExited', name: `local-1-${process.pid}`, code: 3, stderr: 'no backend' }))
      } finally {
        await redis.stop()
      }
    },
    60_000
  )

  it('tells a worker when the process that started it is gone, and never in any other process', async () => {
    const { spawn } = await import('node:child_process')
    const parent = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'])
    const saved = process.env[_.parentEnv]
    process.env[_.parentEnv] = String(parent.pid)
    const gone = _.parentGone()
    let resolved = false
    void gone.then(() => (resolved = true))
    await new Promise((r) => setTimeout(r, 2_500))
    expect(resolved).toBe(false)
    parent.kill('SIGKILL')
    await gone
    if (saved === undefined) delete process.env[_.parentEnv]
    else process.env[_.parentEnv] = saved
    const never = await Promise.race([_.parentGone().then(() => 'resolved'), new Promise((r) => setTimeout(() => r('pending'), 100))])
    expect(never).toBe('pending')
  }, 30_000)

  it("decodes a recipe's scale-out settings: all optional, counts checked", () => {
    expect(_.Settings.decode({})).toEqual(E.right({}))
    expect(_.Settings.decode({ redis: 'redis://h:6379', workers: 0, groupsPerJob: 2, queue: 'q' })).toEqual(
      E.right({ redis: 'redis://h:6379', workers: 0, groupsPerJob: 2, queue: 'q' })
    )
    expect(E.isLeft(_.Settings.decode({ workers: -1 }))).toBe(true)
    expect(E.isLeft(_.Settings.decode({ groupsPerJob: 0 }))).toBe(true)
  })

  it('runs several workers with --single-threaded, one without', () => {
    expect(_.workerNodeFlags(1)).toEqual([])
    expect(_.workerNodeFlags(2)).toEqual(['--single-threaded'])
  })
})
