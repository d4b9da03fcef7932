/**
 * Redis connections: one plain client per producer or worker (policy store, job lookups), checked
 * with a PING before use, so an unreachable Redis is a clear error rather than a hang.
 */
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import { Redis } from 'ioredis'
import * as QueueError from '../QueueError.js'

export const defaults = { queue: 'mtrl-rollout', prefix: 'mtrl' } as const

/** Resolves within `timeoutMs` or fails with `reason`. */
export const within = <A>(promise: Promise<A>, timeoutMs: number, reason: string): Promise<A> => {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<A>((_, reject) => {
      timer = setTimeout(() => reject(new Error(reason)), timeoutMs)
      timer.unref()
    })
  ])
}

/** A client that answers PING within `timeoutMs` (default 5 s); commands fail after two reconnection attempts. */
export const connect =
  (url: string, timeoutMs = 5_000): TE.TaskEither<QueueError.QueueError, Redis> =>
  async () => {
    if (!/^rediss?:\/\//.test(url)) return E.left(QueueError.redisUnavailable(url, 'the URL must start with redis:// or rediss://'))
    const redis = new Redis(url, { maxRetriesPerRequest: 2, connectTimeout: timeoutMs, lazyConnect: false })
    redis.on('error', () => undefined) // reported through the commands that fail
    try {
      await within(redis.ping(), timeoutMs, `no answer to PING within ${timeoutMs} ms`)
      return E.right(redis)
    } catch (e) {
      redis.disconnect()
      return E.left(QueueError.redisUnavailable(url, e instanceof Error ? e.message : String(e)))
    }
  }
