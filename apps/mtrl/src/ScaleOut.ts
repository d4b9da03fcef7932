/**
 * Scale-out for a training run: connects to the Redis queue named by `--redis` (or the recipe's
 * `scaleOut.redis`), starting a local `redis-server` when only `--workers N` is given, and starts
 * N local `mtrl worker` processes (same backend as the trainer), so both cores play episodes.
 * Everything started here is stopped by `stop`.
 */
import { QueueError, RedisServer, Runner } from '@mtrl/rollout-queue'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { failed, type CliError } from './Command.js'
import type { ScaleOut } from './recipe/Recipe.js'

export interface Started {
  readonly runner: Runner.Runner
  readonly url: string
  readonly workers: number
  readonly stop: () => Promise<void>
}

const bin = fileURLToPath(new URL('../bin/mtrl.mjs', import.meta.url))

/**
 * Node flags of local workers. Several workers on one machine run V8 single-threaded (no
 * background compile or GC threads): one process otherwise keeps ~1.1 cores busy, and two
 * workers on 2 cores played 1.65x one worker's episodes/s without it, 1.88x with it
 * (`npm run bench -w @mtrl/rollout-queue`, SEEDS=32, WORKER_FLAGS=--single-threaded).
 */
export const workerNodeFlags = (workers: number): ReadonlyArray<string> => (workers > 1 ? ['--single-threaded'] : [])

/** One `mtrl worker` process, once it listens; or why it exited first (its stderr). */
const spawnWorker = (url: string, backend: string, name: string, queue: string | undefined, flags: ReadonlyArray<string>): Promise<E.Either<CliError, ChildProcess>> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [...flags, bin, 'worker', '--redis', url, '--backend', backend, '--name', name, ...(queue === undefined ? [] : ['--queue', queue])], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MTRL_WORKER_PARENT: String(process.pid) }
    })
    let err = ''
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout!.on('data', (d: Buffer) => {
      if (/listening at/.test(d.toString())) resolve(E.right(child))
    })
    child.once('exit', (code) => resolve(E.left(failed(`mtrl worker ${name} exited with ${code}: ${err.trim()}`))))
  })

const stopChild = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })

/** Starts what `settings` asks for (none when it asks for nothing); a failure stops what was started and says why. */
export const start =
  (settings: ScaleOut, backend: string, line: (text: string) => void): TE.TaskEither<CliError, Started | undefined> =>
  async () => {
    const count = settings.workers ?? 0
    if (settings.redis === undefined && count === 0) return E.right(undefined)
    let server: RedisServer.RedisServer | undefined
    if (settings.redis === undefined) {
      const started = await RedisServer.start()()
      if (E.isLeft(started)) return E.left(failed(`--workers: ${QueueError.message(started.left)}`))
      server = started.right
      line(`scale-out: local redis-server at ${server.url}`)
    }
    const url = settings.redis ?? server!.url
    const children: ChildProcess[] = []
    const stop = async (): Promise<void> => {
      await Promise.all(children.map(stopChild))
      await server?.stop()
    }
    const made = await Runner.make({
      url,
      ...(settings.groupsPerJob === undefined ? {} : { groupsPerJob: settings.groupsPerJob }),
      ...(settings.queue === undefined ? {} : { queue: settings.queue })
    })()
    if (E.isLeft(made)) {
      await stop()
      return E.left(failed(QueueError.message(made.left)))
    }
    for (let i = 0; i < count; i++) {
      const child = await spawnWorker(url, backend, `local-${i + 1}-${process.pid}`, settings.queue, workerNodeFlags(count))
      if (E.isLeft(child)) {
        await made.right.close()()
        await stop()
        return child
      }
      children.push(child.right)
    }
    if (count > 0) line(`scale-out: ${count} local worker process${count === 1 ? '' : 'es'} on ${backend}`)
    const runner = made.right
    return E.right({
      runner,
      url,
      workers: count,
      stop: async () => {
        await runner.close()()
        await stop()
      }
    })
  }
