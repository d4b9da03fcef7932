import * as E from 'fp-ts/lib/Either.js'
import { Redis } from 'ioredis'
import { describe, expect, it } from 'vitest'
import { Services } from '@mtrl/testing'
import * as QueueError from '../src/QueueError.js'
import * as _ from '../src/RedisServer.js'

describe('RedisServer', () => {
  it.runIf(Services.available('redis-server'))(
    `starts redis-server on a free port, answers, and is gone after stop ${Services.tag('redis-server')}`,
    async () => {
      const started = await _.start()()
      if (E.isLeft(started)) throw new Error(QueueError.message(started.left))
      const server = started.right
      const client = new Redis(server.url, { maxRetriesPerRequest: 0, retryStrategy: () => null })
      client.on('error', () => undefined)
      expect(await client.ping()).toBe('PONG')
      await server.stop()
      await expect(client.ping()).rejects.toThrow()
      client.disconnect()
      expect(() => process.kill(server.pid, 0)).toThrow()
    }
  )

  it('says how to install it when the binary is missing', async () => {
    const started = await _.start({ binary: 'redis-server-that-is-not-there' })()
    expect(E.isLeft(started) && QueueError.message(started.left)).toMatch(/is not installed \(Debian: apt-get install redis-server\)/)
  })
})
