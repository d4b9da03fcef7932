/**
 * Runs untrusted Node.js code (the agent's repository and its tests) in a child process behind
 * independent guards. Each guard relies on something different, so one failing open does not
 * open the others:
 *
 * | guard          | stops                                   | relies on                                        |
 * |----------------|-----------------------------------------|--------------------------------------------------|
 * | `permission`   | reads/writes outside the allowed paths, child processes, workers | Node 20 `--experimental-permission` |
 * | `network`      | every network connection                | a fresh network namespace (`unshare --net`, util-linux; CAP_SYS_ADMIN or user namespaces) |
 * | `pidNamespace` | stray processes outliving the run       | `unshare --pid --fork --kill-child`: killing its init kills the namespace |
 * | `mountNamespace` | every host path but the run's own, Unix sockets at file paths included | `unshare --mount`, a tmpfs root, read-only binds, pivot_root |
 * | `rlimits`      | memory, process count, file size, CPU   | `prlimit` (util-linux): RLIMIT_AS, NPROC, FSIZE, CPU, CORE, NOFILE |
 * | `uid`          | touching files of other users; NPROC counting | `setpriv` (util-linux) to a fresh unprivileged uid (needs root) |
 * | `timeout`      | wall-clock overruns                     | SIGKILL to the group from the host, and `timeout -s KILL` inside (if the host dies) |
 * | `outputCap`    | floods of output                        | the host counts bytes and kills the group past the cap |
 *
 * `probe()` finds which guards this machine supports; `run` uses all of them unless told
 * otherwise, and reports which were on. Every run first takes its share of the host's budget
 * (`Budget`): it waits while the host has as many runs, or as much sandbox memory, as it allows. A run can also get an input on stdin and a results
 * channel on fd 3 (a pipe only the host reads; see `Report`).
 *
 * @since 0.1.0
 */
import { randomInt } from 'node:crypto'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import * as Budget from './Budget.js'
import * as BaselineProbe from './internal/baseline.js'
import { supervise } from './internal/child.js'
import * as GuardSupport from './internal/guardSupport.js'
import * as Jail from './internal/jail.js'

/**
 * The guard names.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Guard = t.keyof({
  permission: null,
  network: null,
  pidNamespace: null,
  mountNamespace: null,
  rlimits: null,
  uid: null,
  timeout: null,
  outputCap: null
})
/** @category models @since 0.1.0 */
export type Guard = t.TypeOf<typeof Guard>

/** Every guard, in a fixed order. @category constants @since 0.1.0 */
export const allGuards: ReadonlyArray<Guard> = ['permission', 'network', 'pidNamespace', 'mountNamespace', 'rlimits', 'uid', 'timeout', 'outputCap']

/**
 * Resource limits of one run.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Limits = t.type({
  /** Wall-clock limit of the whole run. */
  timeoutMs: t.number,
  /**
   * Memory for the code under test, in MB: its heap objects and its buffers together. The run's
   * address space (RLIMIT_AS) is this plus what the script holds by itself when the code starts
   * (its measured `Baseline`), and the V8 heap's cap (`--max-old-space-size`) is this plus the
   * script's own heap, so neither the heap nor buffers outside it can go past it.
   */
  memoryMb: t.number,
  /** Processes and threads of the run's uid (RLIMIT_NPROC); Node uses about 10 threads. */
  maxProcesses: t.number,
  /** Largest file the run may write (RLIMIT_FSIZE). */
  maxFileMb: t.number,
  /** Bytes of stdout + stderr before the run is killed. */
  maxOutputBytes: t.number
})
/** @category models @since 0.1.0 */
export type Limits = t.TypeOf<typeof Limits>

/** @category constants @since 0.1.0 */
export const defaultLimits: Limits = { timeoutMs: 10_000, memoryMb: 512, maxProcesses: 48, maxFileMb: 8, maxOutputBytes: 1 << 20 }

/**
 * What the script of a run holds by itself when the code under test starts, MB: its address
 * space (Node's code range, thread stacks, the binary, its heap so far: about 650 MB, nearly all
 * never touched) and its V8 heap in use. Measured by running it (`bareBaseline` for a plain
 * script, `Harness.baseline` for the test harness), never assumed.
 *
 * @category models
 * @since 0.3.0
 */
export interface Baseline {
  readonly addressSpaceMb: number
  readonly heapMb: number
}

/**
 * The baseline of a plain script: a bare Node with a run's flags, measured once per process.
 *
 * @category constructors
 * @since 0.3.0
 */
export const bareBaseline = (): E.Either<string, Baseline> => BaselineProbe.bareNode()

/**
 * The address-space cap of a run (RLIMIT_AS), MB: the script's baseline plus `memoryMb`.
 *
 * @category destructors
 * @since 0.2.0
 */
export const addressSpaceMb = (limits: Limits, baseline: Baseline): number => Math.ceil(baseline.addressSpaceMb) + limits.memoryMb

/**
 * Whether a run died of its memory limit (the V8 heap's cap or the address space): what Node
 * prints then. The code can print the same words, but only to change this note, never a result.
 *
 * @category destructors
 * @since 0.2.0
 */
export const memoryExceeded = (r: Pick<RunResult, 'stderr' | 'timedOut'>): boolean =>
  !r.timedOut && /JavaScript heap out of memory|Reached heap limit|std::bad_alloc|Array buffer allocation failed|Cannot allocate memory/.test(r.stderr)

/**
 * What this machine supports: the guards available, and for each missing one why.
 *
 * @category models
 * @since 0.1.0
 */
export interface Probe {
  readonly available: ReadonlyArray<Guard>
  readonly missing: ReadonlyArray<{ readonly guard: Guard; readonly reason: string }>
  /** Absolute paths of the helper tools found. */
  readonly tools: Readonly<Record<'unshare' | 'prlimit' | 'setpriv' | 'timeout' | 'mount' | 'pivotRoot', string | undefined>>
  /** Whether namespaces need a user namespace (not root). */
  readonly userNamespace: boolean
}

let cached: Probe | undefined

/**
 * Detects the guards this machine supports (once per process; a few short `spawnSync` calls).
 *
 * @category constructors
 * @since 0.1.0
 */
export const probe = (): Probe => {
  if (cached !== undefined) return cached
  const { missing, tools, userNamespace } = GuardSupport.detect()
  const hardMissing = new Set(missing.filter((m) => m.guard !== 'timeout').map((m) => m.guard))
  cached = { available: allGuards.filter((g) => !hardMissing.has(g)), missing, tools, userNamespace }
  return cached
}

/**
 * A human-readable account of the guards, for logs and READMEs.
 *
 * @category destructors
 * @since 0.1.0
 */
export const describeProbe = (p: Probe): string =>
  p.missing.length === 0
    ? `sandbox: all guards available (${p.available.join(', ')})`
    : `sandbox: guards available: ${p.available.join(', ')}; MISSING: ${p.missing.map((m) => `${m.guard} (${m.reason})`).join('; ')}`

/**
 * One sandboxed run of `node [nodeArgs] script`.
 *
 * - `writeDir`: the one directory the code may write (and read);
 * - `readPaths`: further directories it may read;
 * - `guards`: the guards to use (default: every available one); asking for a missing guard is
 *   an error, not a silent downgrade.
 *
 * @category models
 * @since 0.1.0
 */
export interface RunOptions {
  readonly writeDir: string
  readonly readPaths: ReadonlyArray<string>
  readonly script: string
  readonly nodeArgs: ReadonlyArray<string>
  readonly limits: Limits
  readonly guards?: ReadonlyArray<Guard>
  /** Called with the uid the run will use, before it starts (to chown the work directory). */
  readonly prepare?: (uid: number | undefined) => void
  /** Written to the run's stdin, which is then closed (default: no stdin). */
  readonly input?: string
  /** Give the run fd 3, a pipe the host reads into `RunResult.channel` (default: no fd 3). */
  readonly channel?: boolean
  /** What the script holds by itself when the code under test starts (default: `bareBaseline()`). */
  readonly baseline?: Baseline
  /** The budget the run takes its share of, `limits.memoryMb` and one run, before it starts (default: `Budget.host()`). */
  readonly budget?: Budget.Budget
}

/**
 * What a run did. `stdout`/`stderr` hold at most `maxOutputBytes` in total.
 *
 * @category models
 * @since 0.1.0
 */
export interface RunResult {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly timedOut: boolean
  readonly outputExceeded: boolean
  readonly stdout: string
  readonly stderr: string
  /** What the run wrote to fd 3 (empty without `channel`), at most `maxOutputBytes`. */
  readonly channel: string
  readonly ms: number
  readonly guards: ReadonlyArray<Guard>
  /** The limits the run had. */
  readonly limits: Limits
}

/**
 * Sandbox failures (the run could not even start).
 *
 * @category models
 * @since 0.1.0
 */
export type SandboxError =
  | { readonly _tag: 'GuardUnavailable'; readonly guards: ReadonlyArray<Guard>; readonly reason: string }
  | { readonly _tag: 'SpawnFailed'; readonly reason: string }

/** @category destructors @since 0.1.0 */
export const errorMessage = (e: SandboxError): string => {
  switch (e._tag) {
    case 'GuardUnavailable':
      return `sandbox guards unavailable: ${e.guards.join(', ')} (${e.reason})`
    case 'SpawnFailed':
      return `sandbox could not start: ${e.reason}`
  }
}

/** A uid no account uses: 2^20 + random, one per run, so NPROC counts only this run. */
const freshUid = (): number => 1_048_576 + randomInt(0, 1 << 24)

/**
 * The full command line for a run (exported for tests and docs).
 *
 * @category destructors
 * @since 0.1.0
 */
export const commandLine = (
  options: RunOptions,
  guards: ReadonlySet<Guard>,
  uid: number | undefined,
  p: Probe = probe(),
  jail: { readonly mount: string; readonly fstab: string } = { mount: Jail.mountPoint(), fstab: '<fstab>' }
): ReadonlyArray<string> => {
  const { limits } = options
  const baseline = options.baseline ?? E.getOrElseW((e: string) => raise(e))(bareBaseline())
  const cmd: string[] = []
  const mount = guards.has('mountNamespace')
  if ((guards.has('network') || guards.has('pidNamespace') || mount) && p.tools.unshare !== undefined) {
    cmd.push(p.tools.unshare)
    if (p.userNamespace) cmd.push('--user', '--map-root-user')
    if (guards.has('network')) cmd.push('--net')
    // The private root mounts a /proc of its own, which needs a PID namespace.
    if (guards.has('pidNamespace') || mount) cmd.push('--pid', '--fork', '--kill-child')
    if (mount) cmd.push('--mount')
    cmd.push('--')
    if (mount) cmd.push(...Jail.wrap(jail.mount, jail.fstab, options.writeDir))
  }
  if (guards.has('timeout') && p.tools.timeout !== undefined) cmd.push(p.tools.timeout, '-s', 'KILL', `${Math.ceil(limits.timeoutMs / 1000) + 1}s`)
  if (guards.has('rlimits') && p.tools.prlimit !== undefined) {
    cmd.push(
      p.tools.prlimit,
      `--as=${Math.floor(addressSpaceMb(limits, baseline) * 1024 * 1024)}`,
      `--fsize=${Math.floor(limits.maxFileMb * 1024 * 1024)}`,
      `--cpu=${Math.ceil(limits.timeoutMs / 1000) + 1}`,
      '--core=0',
      '--nofile=256'
    )
    // NPROC counts every process of the uid: only meaningful with a fresh uid of our own.
    if (uid !== undefined) cmd.push(`--nproc=${limits.maxProcesses}`)
    cmd.push('--')
  }
  if (uid !== undefined && p.tools.setpriv !== undefined)
    cmd.push(p.tools.setpriv, `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--no-new-privs', '--')
  cmd.push(process.execPath)
  if (guards.has('permission')) {
    cmd.push('--experimental-permission', `--allow-fs-write=${options.writeDir}`, `--allow-fs-read=${options.writeDir}`)
    for (const r of options.readPaths) cmd.push(`--allow-fs-read=${r}`)
  }
  cmd.push('--no-warnings', `--max-old-space-size=${heapMb(limits, baseline)}`, ...options.nodeArgs, options.script)
  return cmd
}

/**
 * The V8 heap limit a run gets (`--max-old-space-size`, MB): `memoryMb` plus the script's own
 * heap, at least 32.
 *
 * @category destructors
 * @since 0.1.0
 */
export const heapMb = (limits: Limits, baseline: Baseline): number => Math.max(32, Math.floor(limits.memoryMb) + Math.ceil(baseline.heapMb))

const raise = (message: string): never => {
  throw new Error(message)
}

/**
 * Runs the script under the requested guards. Never rejects once started: a killed run is a
 * `RunResult` with `timedOut` or `outputExceeded` set.
 *
 * @category constructors
 * @since 0.1.0
 */
export const run =
  (options: RunOptions): TE.TaskEither<SandboxError, RunResult> =>
  async () => {
    const p = probe()
    const wanted = options.guards ?? p.available
    const unavailable = wanted.filter((g) => !p.available.includes(g))
    if (unavailable.length > 0) return E.left({ _tag: 'GuardUnavailable', guards: unavailable, reason: describeProbe(p) })
    const baseline = options.baseline === undefined ? bareBaseline() : E.right(options.baseline)
    if (E.isLeft(baseline)) return E.left({ _tag: 'SpawnFailed', reason: baseline.left })
    const budget = options.budget === undefined ? Budget.host() : E.right(options.budget)
    if (E.isLeft(budget)) return E.left({ _tag: 'SpawnFailed', reason: `host budget: ${budget.left}` })
    let lease: Budget.Lease
    try {
      lease = await Budget.acquire(options.limits.memoryMb)(budget.right)
    } catch (e) {
      return E.left({ _tag: 'SpawnFailed', reason: `host budget: ${String(e)}` })
    }
    const guards = new Set(wanted)
    const uid = guards.has('uid') ? freshUid() : undefined
    const mount = Jail.mountPoint()
    let table: { readonly file: string; readonly remove: () => void } | undefined
    try {
      options.prepare?.(uid)
      if (guards.has('mountNamespace')) table = Jail.writeFstab(mount, options.writeDir, options.readPaths)
    } catch (e) {
      lease.release()
      return E.left({ _tag: 'SpawnFailed', reason: `prepare: ${String(e)}` })
    }
    const [cmd, ...args] = commandLine({ ...options, baseline: baseline.right }, guards, uid, p, { mount, fstab: table?.file ?? '' })
    return supervise(options, guards, () => {
      table?.remove()
      lease.release()
    })(cmd!, args)
  }
