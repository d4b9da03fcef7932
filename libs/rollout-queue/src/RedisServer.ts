/**
 * A local Redis server in a child process (Debian's `redis-server`, or any on the `PATH`), for
 * `mtrl train --workers N` without `--redis` and for tests: on a free port of 127.0.0.1, no
 * persistence (the queue holds one iteration's jobs at a time), stopped with `stop`.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import * as QueueError from './QueueError.js'

/**
 * A running server: its `redis://` URL and port, the process id, `stop` (SIGTERM, resolves when
 * it is gone) and `kill` (SIGKILL, for tests of a lost server).
 *
 * @category models
 * @since 0.1.0
 */
export interface RedisServer {
  readonly url: string
  readonly port: number
  readonly pid: number
  readonly stop: () => Promise<void>
  readonly kill: () => Promise<void>
}

/**
 * - `binary`: the server program (default `redis-server`);
 * - `port`: default a free port (asked of the OS, then given to Redis).
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly binary?: string
  readonly port?: number
}

/**
 * A free TCP port on 127.0.0.1 (the OS picks one; it is released before Redis binds it).
 *
 * @category constructors
 * @since 0.1.0
 */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

/**
 * Starts `redis-server` and resolves once it accepts connections. A missing binary is a
 * `RedisUnavailable` error saying how to install it.
 *
 * @example
 * import { RedisServer } from '@mtrl/rollout-queue'
 * const started = await RedisServer.start()()
 * if (started._tag === 'Right') await started.right.stop()
 *
 * @category constructors
 * @since 0.1.0
 */
export const start =
  (options: Options = {}): TE.TaskEither<QueueError.QueueError, RedisServer> =>
  async () => {
    const binary = options.binary ?? 'redis-server'
    const port = options.port ?? (await freePort())
    const url = `redis://127.0.0.1:${port}`
    return new Promise((resolve) => {
      const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], {
        stdio: ['ignore', 'pipe', 'pipe']
      })
      let out = ''
      let ready = false
      const gone = new Promise<void>((done) => child.once('exit', () => done()))
      const signal = (sig: NodeJS.Signals) => async (): Promise<void> => {
        if (child.exitCode === null && child.signalCode === null) child.kill(sig)
        await gone
      }
      child.once('error', (e: NodeJS.ErrnoException) =>
        resolve(E.left(QueueError.redisUnavailable(url, e.code === 'ENOENT' ? `${binary} is not installed (Debian: apt-get install redis-server)` : e.message)))
      )
      const onData = (d: Buffer): void => {
        out += d.toString()
        if (!ready && /Ready to accept connections/.test(out)) {
          ready = true
          resolve(E.right({ url, port, pid: child.pid!, stop: signal('SIGTERM'), kill: signal('SIGKILL') }))
        }
      }
      child.stdout.on('data', onData)
      child.stderr.on('data', onData)
      void gone.then(() => {
        if (!ready) resolve(E.left(QueueError.redisUnavailable(url, `${binary} exited before it was ready: ${out.trim().split('\n').slice(-3).join(' | ')}`)))
      })
    })
  }
