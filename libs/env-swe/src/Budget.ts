/**
 * The host's budget of sandboxed runs (issue 55): at most `runs` at once and `memoryMb` of
 * sandbox memory (the sum of the runs' `memoryMb`), shared by everything on the host that runs
 * tests in the sandbox: every `Pool` of a process, its rollout threads, and every other process
 * (worker processes, other experiments), since the budget lives in a directory, not in memory.
 *
 * A run holds a lease: a file `<pid>-<n>-<memoryMb>.run` in the budget's directory, created
 * under a short lock (a file opened with `O_EXCL`) after counting the others. A lease of a
 * process that no longer exists (killed, even with SIGKILL) is swept by the next count. A run
 * that does not fit waits (in FIFO order within a process, polling the directory for the
 * others); it never fails. A run asking for more memory than the whole budget runs alone.
 *
 * `Sandbox.run` takes a lease for every run (`host()` unless told otherwise), so no caller can
 * forget it.
 *
 * @since 0.3.0
 */
import * as fs from 'node:fs'
import { availableParallelism, tmpdir, totalmem } from 'node:os'
import * as path from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import * as Lock from './internal/lock.js'

/**
 * A budget: its directory (one per host: every process using it shares it), the runs at once
 * and the total `memoryMb` of the runs at once.
 *
 * @category models
 * @since 0.3.0
 */
export interface Budget {
  readonly dir: string
  readonly runs: number
  readonly memoryMb: number
}

/** A held share of a budget; `release` is idempotent. @category models @since 0.3.0 */
export interface Lease {
  readonly memoryMb: number
  readonly release: () => void
}

/** One lease found in a budget's directory. @category models @since 0.3.0 */
export interface Holder {
  readonly pid: number
  readonly memoryMb: number
}

/** The environment variables that override the machine's sizes. @category constants @since 0.3.0 */
export const variables = { runs: 'MTRL_SWE_HOST_RUNS', memoryMb: 'MTRL_SWE_HOST_MEMORY_MB', dir: 'MTRL_SWE_HOST_DIR' } as const

/**
 * The budget sized from this machine: one run per core, half its memory, in
 * `os.tmpdir()/mtrl-swe-host`; each overridable by its environment variable (`variables`).
 * `Left` names a variable whose value is not a positive integer (or an absolute path).
 *
 * @category constructors
 * @since 0.3.0
 */
export const fromMachine = (env: Readonly<Record<string, string | undefined>> = process.env): E.Either<string, Budget> => {
  const positive = (name: string, fallback: number): E.Either<string, number> => {
    const raw = env[name]
    if (raw === undefined || raw === '') return E.right(fallback)
    const n = Number(raw)
    return Number.isInteger(n) && n > 0 ? E.right(n) : E.left(`${name} must be a positive integer, got ${JSON.stringify(raw)}`)
  }
  const dir = env[variables.dir]
  if (dir !== undefined && dir !== '' && !path.isAbsolute(dir)) return E.left(`${variables.dir} must be an absolute path, got ${JSON.stringify(dir)}`)
  const runs = positive(variables.runs, availableParallelism())
  const memoryMb = positive(variables.memoryMb, Math.floor(totalmem() / 2 / (1 << 20)))
  if (E.isLeft(runs)) return runs
  if (E.isLeft(memoryMb)) return memoryMb
  return E.right({ dir: dir === undefined || dir === '' ? path.join(tmpdir(), 'mtrl-swe-host') : dir, runs: runs.right, memoryMb: memoryMb.right })
}

let hostBudget: E.Either<string, Budget> | undefined

/**
 * This host's budget (`fromMachine()` with this process's environment, read once).
 *
 * @category constructors
 * @since 0.3.0
 */
export const host = (): E.Either<string, Budget> => {
  hostBudget ??= fromMachine()
  return hostBudget
}

/**
 * One line for logs and `mtrl info`.
 *
 * @category destructors
 * @since 0.3.0
 */
export const describe = (b: Budget): string => `at most ${b.runs} sandboxed runs and ${b.memoryMb} MB of sandbox memory at once on this host (${b.dir})`

const alive = (pid: number): boolean => {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const LEASE = /^(\d+)-\d+-(\d+)\.run$/

/**
 * The leases held now (those of processes that no longer exist are removed).
 *
 * @category destructors
 * @since 0.3.0
 */
export const holders = (b: Budget): ReadonlyArray<Holder> => {
  let names: ReadonlyArray<string>
  try {
    names = fs.readdirSync(b.dir)
  } catch {
    return []
  }
  return names.flatMap((name) => {
    const m = LEASE.exec(name)
    if (m === null) return []
    const holder = { pid: Number(m[1]), memoryMb: Number(m[2]) }
    if (alive(holder.pid)) return [holder]
    fs.rmSync(path.join(b.dir, name), { force: true })
    return []
  })
}

let counter = 0

/** Takes a lease if it fits now (under the directory's lock); `undefined` when it does not. */
const tryTake = (b: Budget, memoryMb: number): Lease | undefined =>
  Lock.withLock(path.join(b.dir, 'lock'), () => {
    const held = holders(b)
    const used = held.reduce((s, h) => s + h.memoryMb, 0)
    if (held.length >= b.runs || (held.length > 0 && used + memoryMb > b.memoryMb)) return undefined
    const file = path.join(b.dir, `${process.pid}-${counter++}-${memoryMb}.run`)
    fs.writeFileSync(file, '', { flag: 'wx', mode: 0o644 })
    let released = false
    return {
      memoryMb,
      release: () => {
        if (released) return
        released = true
        fs.rmSync(file, { force: true })
        wake(b.dir)
      }
    }
  })

interface Waiter {
  readonly budget: Budget
  readonly memoryMb: number
  readonly resolve: (lease: Lease) => void
  readonly reject: (e: Error) => void
}

/** This process's waiters per budget directory, in arrival order, and each directory's poll timer. */
const queues = new Map<string, Waiter[]>()
const timers = new Map<string, NodeJS.Timeout>()
const POLL_MS = 15

/**
 * Gives leases to this process's waiters in order while they fit; polls again while any wait.
 * A directory it cannot use fails every waiter on it.
 */
const wake = (dir: string): void => {
  const queue = queues.get(dir) ?? []
  try {
    while (queue.length > 0) {
      const head = queue[0]!
      const lease = tryTake(head.budget, head.memoryMb)
      if (lease === undefined) break
      queue.shift()
      head.resolve(lease)
    }
  } catch (e) {
    for (const w of queue.splice(0)) w.reject(e instanceof Error ? e : new Error(String(e)))
  }
  if (queue.length > 0 && !timers.has(dir))
    timers.set(
      dir,
      setTimeout(() => {
        timers.delete(dir)
        wake(dir)
      }, POLL_MS)
    )
}

/**
 * Waits for a lease of `memoryMb` (at most `b.memoryMb` counts) and one run; never fails on a
 * full budget, only on a directory it cannot use (rejects with that error).
 *
 * @category constructors
 * @since 0.3.0
 */
export const acquire =
  (memoryMb: number) =>
  (b: Budget): Promise<Lease> => {
    try {
      fs.mkdirSync(b.dir, { recursive: true, mode: 0o755 })
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)))
    }
    const mb = Math.max(0, Math.ceil(memoryMb))
    return new Promise((resolve, reject) => {
      const queue = queues.get(b.dir) ?? []
      queues.set(b.dir, queue)
      queue.push({ budget: b, memoryMb: mb, resolve, reject })
      wake(b.dir)
    })
  }
