import { Rng } from '@mtrl/core'
import { Sampler, ChatTemplate, type Policy } from '@mtrl/policy'
import { Rollout } from '@mtrl/rollout'
import { Services, TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QueueError, Worker, type RedisServer } from '../src/index.js'
import * as Runner from '../src/Runner.js'
import { spawnWorker } from './fixtures/child.js'
import { startRedis } from './fixtures/redis.js'
import * as World from './fixtures/world.js'

let policy: Policy.Policy
beforeAll(async () => {
  await TestBackend.use('cpu')
  policy = World.policy(2)
})
afterAll(() => policy?.dispose())

const local = async (seeds: ReadonlyArray<number>, groupSize: number, rng: Rng.Rng): Promise<Rollout.Result> => {
  const slots = seeds.length * groupSize
  const session = Sampler.make(policy, { slots, maxLen: World.contextLength })
  try {
    const generator = { session, template: ChatTemplate.make(World.tokenizer), tokenizer: World.tokenizer, contextLength: World.contextLength }
    const result = await Rollout.run(World.rollout)(generator)({ envs: World.localEnvs(slots), seeds, groupSize, rng })()
    if (E.isLeft(result)) throw new Error(result.left._tag)
    return result.right
  } finally {
    session.dispose()
  }
}

const runnerOn = async (redis: RedisServer.RedisServer, options: Partial<Runner.Options> = {}): Promise<Runner.Runner> => {
  const made = await Runner.make({ url: redis.url, ...options })()
  if (E.isLeft(made)) throw new Error(QueueError.message(made.left))
  return made.right
}

describe('faults', () => {
  it.runIf(Services.available('redis-server'))(
    `a worker killed with SIGKILL mid-job loses nothing: its job is played elsewhere, each episode counted once ${Services.tag('redis-server')}`,
    async () => {
      const redis = await startRedis()
      const doomed = await spawnWorker(redis.url, 'doomed', 'hang')
      const runner = await runnerOn(redis, { groupsPerJob: 2 })
      let healthy: Awaited<ReturnType<typeof spawnWorker>> | undefined
      try {
        const seeds = [21, 22, 23, 24, 25, 26]
        const playing = runner.run({ env: World.spec, rollout: World.rollout, policy, contextLength: World.contextLength })({
          seeds,
          groupSize: 2,
          rng: Rng.make(3)
        })()
        // the doomed worker takes a job and hangs in it (keeping its lock); a healthy one joins
        const taken = await doomed.waitFor(/^started /)
        healthy = await spawnWorker(redis.url, 'healthy')
        await healthy.waitFor(/^finished /)
        await doomed.kill('SIGKILL')
        const result = await playing
        if (E.isLeft(result)) throw new Error(QueueError.message(result.left))
        const expected = await local(seeds, 2, Rng.make(3))
        expect(result.right.episodes).toEqual(expected.episodes)
        expect(result.right.metrics.episodes).toBe(seeds.length * 2)
        expect(result.right.jobs.every((j) => j.worker === 'healthy')).toBe(true)
        const retried = result.right.jobs.find((j) => j.id === taken.slice('started '.length))
        expect(retried?.episodes).toBe(4)
      } finally {
        await runner.close()()
        await doomed.kill()
        await healthy?.kill()
        await redis.stop()
      }
    },
    120_000
  )

  it.runIf(Services.available('redis-server'))(
    `survives a Redis restart between iterations; an iteration with Redis down fails with a clear message ${Services.tag('redis-server')}`,
    async () => {
      const redis = await startRedis()
      const worker = await Worker.start({ url: redis.url, name: 'w', envs: World.envs })()
      if (E.isLeft(worker)) throw new Error(QueueError.message(worker.left))
      const runner = await runnerOn(redis)
      let restarted: RedisServer.RedisServer | undefined
      try {
        const rng = Rng.make(5)
        const expected = Rng.make(5)
        const play = () =>
          runner.run({ env: World.spec, rollout: World.rollout, policy, contextLength: World.contextLength })({ seeds: [1, 2], groupSize: 2, rng })()
        const first = await play()
        expect(E.isRight(first) && first.right.episodes).toEqual((await local([1, 2], 2, expected)).episodes)
        await redis.stop()
        const down = await play()
        expect(E.isLeft(down) && QueueError.message(down.left)).toMatch(new RegExp(`Redis at ${redis.url} is not reachable`))
        // a new server on the same port, empty: the model record and the weights are published again
        restarted = await startRedis(redis.port)
        const skip = Rng.make(5)
        await local([1, 2], 2, skip)
        skip.nextUint32() // the failed iteration drew its key before it found Redis down
        const third = await play()
        if (E.isLeft(third)) throw new Error(QueueError.message(third.left))
        expect(third.right.episodes).toEqual((await local([1, 2], 2, skip)).episodes)
      } finally {
        await runner.close()()
        await worker.right.close()()
        await restarted?.stop()
        await redis.stop()
      }
    },
    120_000
  )

  it.runIf(Services.available('redis-server'))(
    `with no worker listening, fails after the patience it was given, saying how to start one ${Services.tag('redis-server')}`,
    async () => {
      const redis = await startRedis()
      const runner = await runnerOn(redis, { noWorkerTimeoutMs: 1_500 })
      try {
        const result = await runner.run({ env: World.spec, rollout: World.rollout, policy, contextLength: World.contextLength })({
          seeds: [1],
          groupSize: 2,
          rng: Rng.make(0)
        })()
        expect(E.isLeft(result) && result.left._tag).toBe('NoWorkers')
        expect(E.isLeft(result) && QueueError.message(result.left)).toMatch(new RegExp(`start one with: mtrl worker --redis ${redis.url}`))
      } finally {
        await runner.close()()
        await redis.stop()
      }
    }
  )

  it('an unreachable Redis is an error value, not a hang', async () => {
    const made = await Runner.make({ url: 'redis://127.0.0.1:1' })()
    expect(E.isLeft(made) && made.left._tag).toBe('RedisUnavailable')
    const worker = await Worker.start({ url: 'redis://127.0.0.1:1', envs: World.envs })()
    expect(E.isLeft(worker) && QueueError.message(worker.left)).toMatch(/Redis at redis:\/\/127.0.0.1:1 is not reachable/)
  })
})
