import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as EnvServer from '../src/EnvServer.js'
import * as _ from '../src/Pool.js'
import { serveInChild } from './fixtures/child.js'
import * as LockEnv from './fixtures/LockEnv.js'

const servers: EnvServer.EnvServer[] = []
beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    const started = await EnvServer.start({ factory: () => LockEnv.make() })()
    if (E.isLeft(started)) throw new Error(started.left.reason)
    servers.push(started.right)
  }
})
afterAll(async () => {
  for (const s of servers) await s.close()()
})

/** Plays the combination of `seed` on `env`; the observations and rewards of the episode. */
const play = async (env: ReturnType<ReturnType<typeof _.make>['make']>, seed: number) => {
  const start = await env.reset(seed)()
  if (E.isLeft(start)) throw new Error(JSON.stringify(start.left))
  const steps = []
  for (const digit of LockEnv.combination(seed)) {
    const step = await env.step(digit)()
    if (E.isLeft(step)) throw new Error(JSON.stringify(step.left))
    steps.push(step.right)
  }
  return { start: start.right, steps }
}

describe('Pool', () => {
  it('spreads environments over the servers, one spec for all, and plays each episode as in-process', async () => {
    const pool = _.make({ servers: servers.map((s) => s.url), client: { name: 'lock' } })
    const envs = Array.from({ length: 4 }, pool.make)
    for (const [i, env] of envs.entries()) {
      expect(env.spec.name).toBe('lock')
      const played = await play(env, 40 + i)
      expect(played.steps[played.steps.length - 1]!.won).toBe(true)
    }
    expect(servers.map((s) => s.size())).toEqual([2, 2])
    await Promise.all(envs.map((e) => e.close()()))
    expect(servers.map((s) => s.size())).toEqual([0, 0])
  })

  it("is an environment source: the pool's name and turn budget, environments spread over the servers, no expert", async () => {
    const source = _.source({ servers: servers.map((s) => s.url), client: { name: 'lock', maxTurns: 7 } })
    expect([source.name, source.maxTurns, source.expertPlan]).toEqual(['lock', 7, undefined])
    const envs = [source.make(), source.make()]
    for (const [i, env] of envs.entries()) expect((await play(env, 80 + i)).steps.some((s) => s.won)).toBe(true)
    expect(servers.map((s) => s.size())).toEqual([1, 1])
    await Promise.all(envs.map((e) => e.close()()))
    source.dispose()
  })

  it('retires a dead server: the environments that would start there reset on the live ones', async () => {
    const doomed = await serveInChild()
    await doomed.kill()
    const pool = _.make({ servers: [doomed.url, ...servers.map((s) => s.url)], client: { retries: 0 } })
    const envs = Array.from({ length: 6 }, pool.make)
    for (const [i, env] of envs.entries()) expect((await play(env, 60 + i)).steps.some((s) => s.won)).toBe(true)
    expect(pool.retired()).toEqual([{ server: doomed.url, reason: expect.stringMatching(/ECONNREFUSED/) }])
    // envs 0 and 3 would have started on the dead server: they moved to the next one
    expect(servers.map((s) => s.size())).toEqual([4, 2])
    await Promise.all(envs.map((e) => e.close()()))
  })

  it('fails a reset with the last error when no server is alive', async () => {
    const gone = await serveInChild()
    await gone.kill()
    const env = _.make({ servers: [gone.url], client: { retries: 0 } }).make()
    const start = await env.reset(1)()
    expect(E.isLeft(start) && start.left._tag).toBe('Transport')
  })
})
