/**
 * A counting semaphore for sandboxed test runs: at most `size` run at once, the rest wait in
 * FIFO order. Share one pool between all environments of a process so that many episodes never
 * start more test processes than the machine has cores for. Runs do not share anything else:
 * each has its own directory, uid, network and PID namespaces (see `Sandbox`).
 *
 * @since 0.1.0
 */
import { availableParallelism } from 'node:os'
import type * as TE from 'fp-ts/lib/TaskEither.js'

/**
 * A pool. `peak()` is the most runs ever active at once (for tests and benchmarks).
 *
 * @category models
 * @since 0.1.0
 */
export interface Pool {
  readonly size: number
  readonly run: <E, A>(task: TE.TaskEither<E, A>) => TE.TaskEither<E, A>
  readonly active: () => number
  readonly peak: () => number
  readonly dispose: () => void
}

/**
 * A pool of `size` slots (default: the number of cores).
 *
 * @example
 * import { Pool } from '@mtrl/env-swe'
 * const pool = Pool.make(2)
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (size: number = availableParallelism()): Pool => {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`Pool.make: size must be a positive integer, got ${size}`)
  let active = 0
  let peak = 0
  let disposed = false
  const waiting: Array<() => void> = []
  const acquire = (): Promise<void> =>
    new Promise((resolve) => {
      if (active < size) {
        active++
        peak = Math.max(peak, active)
        resolve()
      } else waiting.push(() => resolve())
    })
  const release = (): void => {
    const next = waiting.shift()
    if (next !== undefined) next()
    else active--
    peak = Math.max(peak, active)
  }
  const run =
    <E, A>(task: TE.TaskEither<E, A>): TE.TaskEither<E, A> =>
    async () => {
      if (disposed) throw new Error('Pool.run: pool disposed')
      await acquire()
      try {
        return await task()
      } finally {
        release()
      }
    }
  return {
    size,
    run,
    active: () => active,
    peak: () => peak,
    dispose: () => {
      disposed = true
    }
  }
}
