/**
 * Issue 55: one budget of sandboxed runs per host. Its size comes from the machine (overridable
 * by environment variables, bad values named); it holds across independent pools of one process
 * and across processes; a run that does not fit waits and then runs; leases of dead processes
 * are swept.
 */
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism, tmpdir, totalmem } from 'node:os'
import * as path from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterEach, describe, expect, it } from 'vitest'
import * as _ from '../src/Budget.js'
import * as Pool from '../src/Pool.js'
import * as Sandbox from '../src/Sandbox.js'
import * as Workspace from '../src/Workspace.js'
import { tight } from './helpers.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})
const budget = (runs: number, memoryMb: number): _.Budget => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), 'mtrl-swe-test-budget-'))
  dirs.push(dir)
  return { dir, runs, memoryMb }
}

/** The most intervals `[start, end)` open at one time, and the most memory they hold then. */
const peak = (spans: ReadonlyArray<{ readonly start: number; readonly end: number; readonly mb: number }>) => {
  const events = spans.flatMap((s) => [
    { t: s.start, runs: 1, mb: s.mb },
    { t: s.end, runs: -1, mb: -s.mb }
  ])
  events.sort((a, b) => a.t - b.t || a.runs - b.runs)
  let runs = 0
  let mb = 0
  let most = { runs: 0, mb: 0 }
  for (const e of events) {
    runs += e.runs
    mb += e.mb
    most = { runs: Math.max(most.runs, runs), mb: Math.max(most.mb, mb) }
  }
  return most
}

/** A script that prints when it starts, sleeps `ms`, and prints when it ends: its span, inside its run's lease. */
const sleep = (ms: number): string => `console.log(Date.now()); setTimeout(() => console.log(Date.now()), ${ms})`

/** The span a sleeper printed. */
const spanOf = (stdout: string, mb: number) => {
  const [start, end] = stdout.trim().split('\n').map(Number)
  return { start: start!, end: end!, mb }
}

/** A sandboxed sleeper of `memoryMb` under the budget `b`. */
const sleeper = (b: _.Budget, memoryMb: number, ms: number) => async () => {
  const ws = Workspace.make({ 'main.js': sleep(ms) })
  try {
    const r = await Sandbox.run({
      writeDir: ws.repoDir,
      readPaths: [],
      script: `${ws.repoDir}/main.js`,
      nodeArgs: [],
      limits: { ...tight, memoryMb },
      budget: b,
      prepare: ws.prepare
    })()
    if (E.isLeft(r)) throw new Error(Sandbox.errorMessage(r.left))
    return E.right(spanOf(r.right.stdout, memoryMb))
  } finally {
    ws.dispose()
  }
}

const tsx = path.join(path.dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/cli.mjs')

/** A second process on the host: its own pool of 4 runs `n` sleepers under the same budget and prints their spans. */
const otherProcess = (b: _.Budget, memoryMb: number, n: number): Promise<ReadonlyArray<{ start: number; end: number; mb: number }>> => {
  const source = new URL('../src/', import.meta.url).pathname
  const script = `
    import * as E from 'fp-ts/lib/Either.js'
    import * as Sandbox from ${JSON.stringify(`${source}Sandbox.ts`)}
    import * as Pool from ${JSON.stringify(`${source}Pool.ts`)}
    import * as Workspace from ${JSON.stringify(`${source}Workspace.ts`)}
    const b = ${JSON.stringify(b)}
    const run = async () => {
      const ws = Workspace.make({ 'main.js': ${JSON.stringify(sleep(150))} })
      const r = await Sandbox.run({ writeDir: ws.repoDir, readPaths: [], script: ws.repoDir + '/main.js', nodeArgs: [], limits: ${JSON.stringify({ ...tight, memoryMb })}, budget: b, prepare: ws.prepare })()
      ws.dispose()
      if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
      const [start, end] = r.right.stdout.trim().split('\\n').map(Number)
      return E.right({ start, end, mb: ${memoryMb} })
    }
    const pool = Pool.make(4)
    void Promise.all(Array.from({ length: ${n} }, () => pool.run(run)())).then((spans) => console.log(JSON.stringify(spans.map((s) => s.right))))`
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsx, '--conditions=@mtrl/source', '-e', script], {
      cwd: new URL('..', import.meta.url).pathname,
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    let err = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr.on('data', (c: Buffer) => (err += c.toString()))
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`exit ${code}: ${err}`))))
  })
}

describe('Budget', () => {
  it('is sized from the machine, overridable by environment variables; bad values are named', () => {
    const machine = E.getOrElseW((e) => expect.fail(String(e)))(_.fromMachine({}))
    expect(machine).toEqual({ dir: path.join(tmpdir(), 'mtrl-swe-host'), runs: availableParallelism(), memoryMb: Math.floor(totalmem() / 2 / (1 << 20)) })
    expect(_.fromMachine({ MTRL_SWE_HOST_RUNS: '3', MTRL_SWE_HOST_MEMORY_MB: '2048', MTRL_SWE_HOST_DIR: '/x/y' })).toEqual(
      E.right({ dir: '/x/y', runs: 3, memoryMb: 2048 })
    )
    expect(_.fromMachine({ MTRL_SWE_HOST_RUNS: '0' })).toEqual(E.left('MTRL_SWE_HOST_RUNS must be a positive integer, got "0"'))
    expect(_.fromMachine({ MTRL_SWE_HOST_MEMORY_MB: 'lots' })).toEqual(E.left('MTRL_SWE_HOST_MEMORY_MB must be a positive integer, got "lots"'))
    expect(_.fromMachine({ MTRL_SWE_HOST_DIR: 'rel' })).toEqual(E.left('MTRL_SWE_HOST_DIR must be an absolute path, got "rel"'))
    expect(_.describe({ dir: '/d', runs: 2, memoryMb: 100 })).toBe('at most 2 sandboxed runs and 100 MB of sandbox memory at once on this host (/d)')
  })

  it('leases: runs and memory both bound; a run larger than the whole budget runs alone; release wakes the next; dead processes are swept', async () => {
    const b = budget(3, 1000)
    const a = await _.acquire(400)(b)
    const c = await _.acquire(400)(b)
    let third: _.Lease | undefined
    const waiting = _.acquire(400)(b).then((l) => (third = l))
    await new Promise((r) => setTimeout(r, 60))
    expect(third).toBeUndefined()
    expect(_.holders(b).map((h) => h.memoryMb)).toEqual([400, 400])
    a.release()
    a.release()
    await waiting
    expect(_.holders(b)).toHaveLength(2)
    let huge: _.Lease | undefined
    const alone = _.acquire(5000)(b).then((l) => (huge = l))
    c.release()
    await new Promise((r) => setTimeout(r, 60))
    expect(huge).toBeUndefined()
    third!.release()
    await alone
    expect(_.holders(b)).toEqual([{ pid: process.pid, memoryMb: 5000 }])
    huge!.release()
    const dead = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' })
    fs.writeFileSync(path.join(b.dir, `${dead.stdout.trim()}-0-900.run`), '')
    expect(_.holders(b)).toEqual([])
    expect(fs.readdirSync(b.dir)).toEqual([])
  })

  it.runIf(Sandbox.probe().available.length > 0)(
    'four independent pools and two other processes never exceed the host budget; queued runs wait and all succeed',
    async () => {
      // Memory binds: 3 runs would fit, 160 MB allows 2 runs of 64 MB.
      const b = budget(3, 160)
      const pools = Array.from({ length: 4 }, () => Pool.make(2))
      const here = Promise.all(pools.flatMap((pool) => Array.from({ length: 3 }, () => pool.run(sleeper(b, 64, 150))())))
      const others = Promise.all([otherProcess(b, 64, 4), otherProcess(b, 64, 4)])
      const [mine, theirs] = await Promise.all([here, others])
      const spans = [...mine.map((r) => E.getOrElseW((e) => expect.fail(String(e)))(r)), ...theirs.flat()]
      expect(spans).toHaveLength(12 + 8)
      const most = peak(spans)
      expect(most.runs).toBeLessThanOrEqual(2)
      expect(most.mb).toBeLessThanOrEqual(160)
      expect(most.runs).toBe(2)
      expect(fs.readdirSync(b.dir)).toEqual([])
    }
  )
})
