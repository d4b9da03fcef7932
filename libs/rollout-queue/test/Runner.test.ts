import { Rng } from '@mtrl/core'
import { ChatTemplate, Policy, Sampler } from '@mtrl/policy'
import { Rollout } from '@mtrl/rollout'
import { Services, TestBackend } from '@mtrl/testing'
import { Config, Kl, Trainer } from '@mtrl/trainer-rl'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QueueError, Worker, type RedisServer } from '../src/index.js'
import * as _ from '../src/Runner.js'
import { startRedis } from './fixtures/redis.js'
import * as World from './fixtures/world.js'

let redis: RedisServer.RedisServer
let policy: Policy.Policy
const workers: Worker.RunningWorker[] = []

// wasm: the trainer's update is ~50x faster than on cpu here; equivalence holds on both (Faults runs cpu)
beforeAll(async () => {
  await TestBackend.use('wasm')
  if (!Services.available('redis-server')) return
  redis = await startRedis()
  policy = World.policy()
  for (const name of ['w1', 'w2']) {
    const started = await Worker.start({ url: redis.url, name, envs: World.envs })()
    if (E.isLeft(started)) throw new Error(QueueError.message(started.left))
    workers.push(started.right)
  }
})
afterAll(async () => {
  for (const w of workers) await w.close()()
  policy?.dispose()
  await redis?.stop()
})

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

const remote = async (runner: _.Runner, seeds: ReadonlyArray<number>, groupSize: number, rng: Rng.Rng): Promise<_.Result> => {
  const result = await runner.run({ env: World.spec, rollout: World.rollout, policy, contextLength: World.contextLength })({ seeds, groupSize, rng })()
  if (E.isLeft(result)) throw new Error(QueueError.message(result.left))
  return result.right
}

describe.runIf(Services.available('redis-server'))(`Runner ${Services.tag('redis-server')}`, () => {
  it('plays the same episodes as a local rollout for the same seed, token for token, in slot order', async () => {
    const made = await _.make({ url: redis.url, groupsPerJob: 1 })()
    if (E.isLeft(made)) throw new Error(QueueError.message(made.left))
    const runner = made.right
    try {
      const seeds = [11, 12, 13, 14, 15]
      const localRng = Rng.make(7)
      const remoteRng = Rng.make(7)
      for (let iteration = 0; iteration < 2; iteration++) {
        const expected = await local(seeds, 3, localRng)
        const got = await remote(runner, seeds, 3, remoteRng)
        expect(got.episodes).toEqual(expected.episodes)
        expect(expected.metrics.turns).toBeGreaterThan(15)
        expect(new Set(expected.episodes.map((e) => e.trajectory.turns.map((t) => t.action).join('|'))).size).toBeGreaterThan(5)
        const { seconds: _s, tokensPerSecond: _t, turnsPerSecond: _u, ...counts } = expected.metrics
        expect(got.metrics).toMatchObject(counts)
        // five jobs of one group each, spread over both workers
        expect(got.jobs.map((j) => j.episodes)).toEqual([3, 3, 3, 3, 3])
        expect(remoteRng.state()).toEqual(localRng.state())
      }
      expect(new Set(workers.map((w) => w.finished() > 0))).toEqual(new Set([true]))
    } finally {
      await runner.close()()
    }
  })

  it('takes the weights as they are at the call: an update that runs meanwhile (a trainer playing ahead) does not reach the episodes', async () => {
    const made = await _.make({ url: redis.url })()
    if (E.isLeft(made)) throw new Error(QueueError.message(made.left))
    const runner = made.right
    const [p, other] = [World.policy(), World.policy(5)]
    try {
      const seeds = [21, 22, 23]
      const expected = await local(seeds, 2, Rng.make(4))
      const running = runner.run({ env: World.spec, rollout: World.rollout, policy: p, contextLength: World.contextLength })({
        seeds,
        groupSize: 2,
        rng: Rng.make(4)
      })()
      for (const [name, v] of Object.entries(p.variables)) v.assign(other.variables[name]!)
      const got = await running
      if (E.isLeft(got)) throw new Error(QueueError.message(got.left))
      expect(got.right.episodes).toEqual(expected.episodes)
      const changed = await runner.run({ env: World.spec, rollout: World.rollout, policy: p, contextLength: World.contextLength })({
        seeds,
        groupSize: 2,
        rng: Rng.make(4)
      })()
      expect(E.isRight(changed) && changed.right.episodes).not.toEqual(expected.episodes)
    } finally {
      await runner.close()()
      p.dispose()
      other.dispose()
    }
  })

  it('a trainer whose episodes workers play takes the same steps as a local one: same metrics, same weights', async () => {
    const made = await _.make({ url: redis.url })()
    if (E.isLeft(made)) throw new Error(QueueError.message(made.left))
    const runner = made.right
    const config: Config.Config = Config.make({
      algorithm: 'grpo',
      kl: Kl.none,
      budget: { seedsPerIteration: 3, groupSize: 2 },
      rollout: World.rollout,
      policy: { lr: 1e-2 },
      seed: 9
    })
    const trainerOf = (remote: boolean) => {
      const p = World.policy(3)
      const trainer = Trainer.make({
        config,
        policy: p,
        envs: World.localEnvs(6),
        template: ChatTemplate.make(World.tokenizer),
        tokenizer: World.tokenizer,
        contextLength: World.contextLength,
        // a reward that differs between the episodes of a group, so every iteration moves the policy
        reward: (t) => t.turns.map((turn) => turn.action.length % 3),
        ...(remote
          ? { play: _.asRollout(runner, { env: World.spec, rollout: World.rollout, policy: p, contextLength: World.contextLength, envName: 'textworld' }) }
          : {})
      })
      return { p, trainer }
    }
    const a = trainerOf(false)
    const b = trainerOf(true)
    try {
      const timeless = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).filter(([k]) => !/^time\/|per_s|_per_second|tokens_per/.test(k)))
      for (let i = 0; i < 2; i++) {
        const ma = await Trainer.iterate(a.trainer)()
        const mb = await Trainer.iterate(b.trainer)()
        if (E.isLeft(ma) || E.isLeft(mb)) throw new Error('iteration failed')
        expect(timeless(mb.right as never)).toEqual(timeless(ma.right as never))
        expect(ma.right['batch/samples']).toBeGreaterThan(0)
      }
      const host = (p: Policy.Policy) => [...Policy.toHost(p.variables)].map(([n, w]) => [n, Array.from(w.data)])
      expect(host(b.p)).toEqual(host(a.p))
      expect(host(a.p)).not.toEqual(host(World.policy(3)))
    } finally {
      for (const t of [a, b]) {
        t.trainer.dispose()
        t.p.dispose()
      }
      await runner.close()()
    }
  })
})
