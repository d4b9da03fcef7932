import { ChatTemplate, Lora, Policy } from '@mtrl/policy'
import { expectNoLeak, Services, TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as QueueError from '../src/QueueError.js'
import type { RedisServer } from '../src/index.js'
import * as _ from '../src/PolicyStore.js'
import { startRedis } from './fixtures/redis.js'
import * as World from './fixtures/world.js'

let server: RedisServer.RedisServer
let redis: Redis
beforeAll(async () => {
  await TestBackend.use('cpu')
  if (!Services.available('redis-server')) return
  server = await startRedis()
  redis = new Redis(server.url)
})
afterAll(async () => {
  redis?.disconnect()
  await server?.stop()
})

const weightsOf = (policy: Policy.Policy) => [...Policy.toHost(policy.variables)].map(([name, w]) => [name, w.shape, Array.from(w.data)])

describe.runIf(Services.available('redis-server'))(`PolicyStore ${Services.tag('redis-server')}`, () => {
  it('a published version loads bit for bit, with its tokenizer and LoRA adapters, once per version', async () => {
    const policy = World.policy(4)
    const adapted = Policy.fromHost(policy.config, Policy.toHost(policy.variables), { tokenizer: World.tokenizer, lora: { ...Lora.defaultOptions, rank: 2 } })
    const publish = _.publish({ prefix: 'test' })(redis)
    const cache = _.cache(redis)
    await expectNoLeak(async () => {
      for (const p of [policy, adapted]) {
        const ref = await publish(p, `v-${p === policy ? 0 : 1}`)()
        if (E.isLeft(ref)) throw new Error(QueueError.message(ref.left))
        const a = await cache.get(ref.right)()
        const b = await cache.get(ref.right)()
        if (E.isLeft(a) || E.isLeft(b)) throw new Error('not loaded')
        expect(b.right.policy).toBe(a.right.policy)
        expect(weightsOf(a.right.policy)).toEqual(weightsOf(p))
        expect(a.right.policy.lora).toEqual(p.lora)
        expect(Array.from(a.right.tokenizer.encode('go north, then take the key'))).toEqual(Array.from(World.tokenizer.encode('go north, then take the key')))
        expect(Array.from(a.right.template.prompt('system', 'user'))).toEqual(Array.from(ChatTemplate.make(World.tokenizer).prompt('system', 'user')))
        a.right.release()
        b.right.release()
      }
      expect(cache.loads()).toEqual(['test:weights:v-0', 'test:weights:v-1'])
      cache.dispose()
    })
    policy.dispose()
    adapted.dispose()
  })

  it('a retired or lost version is PolicyMissing', async () => {
    const policy = World.policy(5)
    const ref = await _.publish({ prefix: 'test' })(redis)(policy, 'gone')()
    if (E.isLeft(ref)) throw new Error(QueueError.message(ref.left))
    await _.retire(redis)(ref.right)()
    const cache = _.cache(redis)
    const loaded = await cache.get(ref.right)()
    expect(E.isLeft(loaded) && loaded.left).toEqual({ _tag: 'PolicyMissing', key: 'test:weights:gone' })
    cache.dispose()
    policy.dispose()
  })
})
