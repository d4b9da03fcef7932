/**
 * One sandboxed run's child process, from spawn to result (see `Sandbox.run`): a clean
 * environment in its own process group, its input on stdin, the results channel on fd 3, and
 * the host-side guards: `timeout` (SIGKILL to the group at the wall-clock limit) and
 * `outputCap` (the host counts the bytes of stdout + stderr and kills the group past the cap).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import type { Readable } from 'node:stream'
import * as E from 'fp-ts/lib/Either.js'
import type { Guard, RunOptions, RunResult, SandboxError } from '../Sandbox.js'

/**
 * The run's whole environment. malloc is made predictable, so that the address space a run
 * holds (RLIMIT_AS) is what its code holds: one arena (a second would reserve 64 MB at a
 * thread's first allocation), and a fixed mmap threshold (128 KB; glibc's default moves up to
 * 32 MB), so every buffer of 128 KB or more is a mapping of its own, returned when freed.
 */
export const childEnv = (dir: string): NodeJS.ProcessEnv => ({
  PATH: '/usr/bin:/bin',
  HOME: dir,
  TMPDIR: dir,
  LANG: 'C.UTF-8',
  NODE_ENV: 'test',
  MALLOC_ARENA_MAX: '1',
  MALLOC_MMAP_THRESHOLD_: '131072'
})

/** Starts the command detached (a process group of its own), in the work directory, with a clean environment. */
const spawnDetached = (cmd: string, args: ReadonlyArray<string>, options: RunOptions): E.Either<string, ChildProcess> => {
  const stdio: Array<'ignore' | 'pipe'> = [
    options.input === undefined ? 'ignore' : 'pipe',
    'pipe',
    'pipe',
    ...(options.channel === true ? ['pipe' as const] : [])
  ]
  try {
    return E.right(spawn(cmd, args, { cwd: options.writeDir, env: childEnv(options.writeDir), detached: true, stdio }))
  } catch (e) {
    return E.left(String(e))
  }
}

/** SIGKILL to the child's whole process group. */
const groupKiller = (child: ChildProcess) => (): void => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL')
  } catch {
    // already gone
  }
}

/** Writes the input to the child's stdin and closes it (nothing without an input). */
const feed = (child: ChildProcess, input: string | undefined): void => {
  if (input !== undefined && child.stdin !== null) {
    // A run that dies before reading its input closes the pipe: EPIPE is not our error.
    child.stdin.on('error', () => undefined)
    child.stdin.end(input)
  }
}

/** Collects what the run writes to fd 3, at most `maxBytes`; returns the text collected. */
const captureChannel = (channel: Readable | null | undefined, maxBytes: number): (() => string) => {
  const chunks: Buffer[] = []
  let bytes = 0
  channel?.on('data', (chunk: Buffer) => {
    const room = maxBytes - bytes
    if (room <= 0) return
    chunks.push(chunk.subarray(0, room))
    bytes += Math.min(room, chunk.length)
  })
  channel?.on('error', () => undefined)
  return () => Buffer.concat(chunks).toString('utf8')
}

/** Collects stdout and stderr, at most `maxBytes` together; the chunk that crosses the cap is cut and calls `onExceeded`. */
const captureOutput = (
  child: ChildProcess,
  maxBytes: number,
  onExceeded: () => void
): { readonly stdout: () => string; readonly stderr: () => string; readonly exceeded: () => boolean } => {
  const out: Buffer[] = []
  const err: Buffer[] = []
  let bytes = 0
  let exceeded = false
  const collect = (into: Buffer[]) => (chunk: Buffer) => {
    if (exceeded) return
    const room = maxBytes - bytes
    if (chunk.length > room) {
      into.push(chunk.subarray(0, Math.max(0, room)))
      bytes = maxBytes
      exceeded = true
      onExceeded()
      return
    }
    into.push(chunk)
    bytes += chunk.length
  }
  child.stdout?.on('data', collect(out))
  child.stderr?.on('data', collect(err))
  return { stdout: () => Buffer.concat(out).toString('utf8'), stderr: () => Buffer.concat(err).toString('utf8'), exceeded: () => exceeded }
}

/**
 * A process that escaped the group could hold the pipes open: once the child has exited, give
 * the pipes a moment to drain, then close them ourselves.
 */
const closePipesAfterExit = (child: ChildProcess, channel: Readable | null | undefined): void => {
  child.on('exit', () => {
    setTimeout(() => {
      child.stdout?.destroy()
      child.stderr?.destroy()
      channel?.destroy()
    }, 250).unref()
  })
}

/**
 * Runs the command line under the host-side guards and resolves with what it did once its
 * pipes close (or with `SpawnFailed`); `cleanup` runs once, when the run is over.
 */
export const supervise =
  (options: RunOptions, guards: ReadonlySet<Guard>, cleanup: () => void) =>
  (cmd: string, args: ReadonlyArray<string>): Promise<E.Either<SandboxError, RunResult>> =>
    new Promise((resolve) => {
      const started = Date.now()
      const spawned = spawnDetached(cmd, args, options)
      if (E.isLeft(spawned)) {
        cleanup()
        resolve(E.left({ _tag: 'SpawnFailed', reason: spawned.left }))
        return
      }
      const child = spawned.right
      const killGroup = groupKiller(child)
      const channel = child.stdio[3] as Readable | null | undefined
      const channelText = captureChannel(channel, options.limits.maxOutputBytes)
      feed(child, options.input)
      let timedOut = false
      let settled = false
      const timer = setTimeout(() => {
        timedOut = true
        killGroup()
      }, options.limits.timeoutMs)
      const output = captureOutput(child, options.limits.maxOutputBytes, () => {
        if (guards.has('outputCap')) killGroup()
      })
      child.on('error', (e) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        cleanup()
        resolve(E.left({ _tag: 'SpawnFailed', reason: e.message }))
      })
      closePipesAfterExit(child, channel)
      child.on('close', (code, signal) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        cleanup()
        killGroup()
        resolve(
          E.right({
            exitCode: code,
            signal,
            timedOut,
            outputExceeded: output.exceeded(),
            stdout: output.stdout(),
            stderr: output.stderr(),
            channel: channelText(),
            ms: Date.now() - started,
            guards: [...guards],
            limits: options.limits
          })
        )
      })
    })
