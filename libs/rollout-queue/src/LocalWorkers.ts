/**
 * Scale-out on one machine, and the queue of a training run: connects a `Runner` to the Redis
 * queue at `redis` (or to a local `redis-server` started here when there is none), and starts
 * `workers` local worker processes (each one listens to that queue, e.g. `mtrl worker`), so every
 * core plays episodes. Everything started here is stopped by `stop`; a failure while starting
 * stops what was started and says why.
 *
 * @since 0.1.0
 */
import { Numbers } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as t from 'io-ts'
import { spawn, type ChildProcess } from 'node:child_process'
import * as QueueError from './QueueError.js'
import * as RedisServer from './RedisServer.js'
import * as Runner from './Runner.js'

/**
 * What a recipe sets of scale-out (all optional): `redis`, the queue's server (default: a local
 * one when `workers` is set); `workers`, local worker processes; `groupsPerJob`, groups per job
 * (default: split evenly over the live workers); `queue`, the queue's name (default
 * `mtrl-rollout`).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Settings = t.partial({ redis: t.string, workers: Numbers.NonNegativeInt, groupsPerJob: Numbers.PositiveInt, queue: t.string })
/** @category codecs @since 0.1.0 */
export type Settings = t.TypeOf<typeof Settings>

/**
 * - `redis`: the queue's server (none: a local `redis-server` on a free port);
 * - `workers`: local worker processes to start (0: none, the workers run elsewhere);
 * - `groupsPerJob`, `queue`: the runner's (see `Runner.Options`);
 * - `command(url, name)`: the arguments of `node` that start worker `name` on the queue at `url`
 *   (node flags of {@link workerNodeFlags} go first); it prints `listening at` once it listens;
 * - `env`: extra environment variables of the worker processes (they also get {@link parentEnv});
 * - `onEvent`: the server and the workers started, for people watching.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly redis?: string
  readonly workers: number
  readonly groupsPerJob?: number
  readonly queue?: string
  readonly command: (url: string, name: string) => ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
  readonly onEvent?: (event: Event) => void
}

/**
 * What was started: a local Redis server (at `url`), the local workers (`count`).
 *
 * @category models
 * @since 0.1.0
 */
export type Event = { readonly _tag: 'ServerStarted'; readonly url: string } | { readonly _tag: 'WorkersStarted'; readonly count: number }

/**
 * Why scale-out could not start: the local server, the queue, or a worker that exited before it
 * listened (with its stderr).
 *
 * @category models
 * @since 0.1.0
 */
export type StartError =
  | { readonly _tag: 'Server'; readonly error: QueueError.QueueError }
  | { readonly _tag: 'Queue'; readonly error: QueueError.QueueError }
  | { readonly _tag: 'WorkerExited'; readonly name: string; readonly code: number | null; readonly stderr: string }

/**
 * A start error as one line: `--workers: ...` (the local server), the queue's error, or the
 * worker that exited with its stderr.
 *
 * @category destructors
 * @since 0.7.0
 */
export const describeError = (error: StartError): string => {
  switch (error._tag) {
    case 'Server':
      return `--workers: ${QueueError.message(error.error)}`
    case 'Queue':
      return QueueError.message(error.error)
    case 'WorkerExited':
      return `mtrl worker ${error.name} exited with ${error.code}: ${error.stderr}`
  }
}

/**
 * What was started, as one line (`scale-out: local redis-server at URL`, `scale-out: 2 local
 * worker processes on BACKEND`).
 *
 * @category destructors
 * @since 0.7.0
 */
export const describeEvent =
  (backend: string) =>
  (event: Event): string =>
    event._tag === 'ServerStarted'
      ? `scale-out: local redis-server at ${event.url}`
      : `scale-out: ${event.count} local worker process${event.count === 1 ? '' : 'es'} on ${backend}`

/**
 * A running scale-out: the runner that sends episode jobs, the queue's URL, the local workers,
 * and `stop` (closes the runner, stops the workers, then the local server).
 *
 * @category models
 * @since 0.1.0
 */
export interface Started {
  readonly runner: Runner.Runner
  readonly url: string
  readonly workers: number
  readonly stop: () => Promise<void>
}

/**
 * Node flags of local workers. Several workers on one machine run V8 single-threaded (no
 * background compile or GC threads): one process otherwise keeps ~1.1 cores busy, and two
 * workers on 2 cores played 1.65x one worker's episodes/s without it, 1.88x with it
 * (`npm run bench -w @mtrl/rollout-queue`, SEEDS=32, WORKER_FLAGS=--single-threaded).
 *
 * @category constants
 * @since 0.1.0
 */
export const workerNodeFlags = (workers: number): ReadonlyArray<string> => (workers > 1 ? ['--single-threaded'] : [])

/**
 * The environment variable that tells a local worker its trainer's process id, so it can stop
 * once the trainer is gone, even killed ({@link parentGone}).
 *
 * @category constants
 * @since 0.1.0
 */
export const parentEnv = 'MTRL_WORKER_PARENT'

/**
 * In a worker started by {@link start}: resolves once the process that started it is gone
 * (checked every 2 s, without keeping the process alive); never in any other process.
 *
 * @category destructors
 * @since 0.1.0
 */
export const parentGone = (): Promise<void> =>
  new Promise<void>((resolve) => {
    const parent = Number(process.env[parentEnv] ?? 0)
    if (parent <= 0) return
    const watch = setInterval(() => {
      try {
        process.kill(parent, 0)
      } catch {
        clearInterval(watch)
        resolve()
      }
    }, 2_000)
    watch.unref()
  })

/** One worker process, once it listens; or why it exited first (its stderr). */
const spawnWorker = (args: ReadonlyArray<string>, name: string, env: Readonly<Record<string, string>>): Promise<E.Either<StartError, ChildProcess>> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, [parentEnv]: String(process.pid) } })
    let err = ''
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout!.on('data', (d: Buffer) => {
      if (/listening at/.test(d.toString())) resolve(E.right(child))
    })
    child.once('exit', (code) => resolve(E.left({ _tag: 'WorkerExited', name, code, stderr: err.trim() })))
  })

const stopChild = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })

/** Starts `count` workers named `local-<i>-<pid>`, pushing each into `children`; the first that exits before listening is the error. */
const startWorkers = async (options: Options, url: string, children: ChildProcess[]): Promise<E.Either<StartError, void>> => {
  for (let i = 0; i < options.workers; i++) {
    const name = `local-${i + 1}-${process.pid}`
    const child = await spawnWorker([...workerNodeFlags(options.workers), ...options.command(url, name)], name, options.env ?? {})
    if (E.isLeft(child)) return child
    children.push(child.right)
  }
  if (options.workers > 0) options.onEvent?.({ _tag: 'WorkersStarted', count: options.workers })
  return E.right(undefined)
}

/**
 * Starts the server (unless `redis` is given), the runner and the local workers.
 *
 * @example
 * import { LocalWorkers } from '@mtrl/rollout-queue'
 * const started = await LocalWorkers.start({ workers: 2, command: (url, name) => ['bin/mtrl.mjs', 'worker', '--redis', url, '--name', name] })()
 * if (started._tag === 'Right') await started.right.stop()
 *
 * @category constructors
 * @since 0.1.0
 */
export const start =
  (options: Options): TE.TaskEither<StartError, Started> =>
  async () => {
    let server: RedisServer.RedisServer | undefined
    if (options.redis === undefined) {
      const started = await RedisServer.start()()
      if (E.isLeft(started)) return E.left({ _tag: 'Server', error: started.left })
      server = started.right
      options.onEvent?.({ _tag: 'ServerStarted', url: server.url })
    }
    const url = options.redis ?? server!.url
    const children: ChildProcess[] = []
    const stopLocal = async (): Promise<void> => {
      await Promise.all(children.map(stopChild))
      await server?.stop()
    }
    const made = await Runner.make({
      url,
      ...(options.groupsPerJob === undefined ? {} : { groupsPerJob: options.groupsPerJob }),
      ...(options.queue === undefined ? {} : { queue: options.queue })
    })()
    if (E.isLeft(made)) {
      await stopLocal()
      return E.left({ _tag: 'Queue', error: made.left })
    }
    const runner = made.right
    const stop = async (): Promise<void> => {
      await runner.close()()
      await stopLocal()
    }
    const workers = await startWorkers(options, url, children)
    if (E.isLeft(workers)) {
      await stop()
      return workers
    }
    return E.right({ runner, url, workers: options.workers, stop })
  }
