import { type Env, EnvError } from '@mtrl/core'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as EnvServer from '../src/EnvServer.js'
import * as _ from '../src/HttpEnv.js'
import * as AgentGym from './fixtures/agentGymServer.js'
import { serveInChild } from './fixtures/child.js'
import * as LockEnv from './fixtures/LockEnv.js'

type Outcome = E.Either<EnvError.EnvError, Env.Observation | Env.StepResult>

/** Every answer of an episode (errors included), played with a fixed list of actions. */
const transcript = async (env: Env.Env, seed: number, actions: ReadonlyArray<string>): Promise<Outcome[]> => {
  const out: Outcome[] = [await env.reset(seed)()]
  for (const action of actions) out.push(await env.step(action)())
  return out
}

const leftOf = <A>(result: E.Either<EnvError.EnvError, A>): EnvError.EnvError => {
  if (E.isRight(result)) throw new Error(`expected an error, got ${JSON.stringify(result.right)}`)
  return result.left
}

let server: EnvServer.EnvServer
beforeAll(async () => {
  const started = await EnvServer.start({ factory: () => LockEnv.make({ hangMs: 5_000 }) })()
  if (E.isLeft(started)) throw new Error(started.left.reason)
  server = started.right
})
afterAll(() => server.close()())

describe('HttpEnv against an mtrl EnvServer', () => {
  it('plays exactly the in-process episode, errors included, for any seed and actions', async () => {
    const remote = await _.connect({ baseUrl: server.url })()
    if (E.isLeft(remote)) throw new Error(EnvError.message(remote.left))
    const local = LockEnv.make()
    expect(remote.right.spec).toEqual(local.spec)
    const action = fc.oneof(fc.constantFrom(...LockEnv.DIGITS), fc.string({ maxLength: 12 }))
    await fc.assert(
      fc.asyncProperty(fc.nat(10_000), fc.array(action, { maxLength: 12 }), async (seed, actions) => {
        const solve = [...LockEnv.combination(seed)]
        const plan = [...actions, ...solve, 'one more step after winning']
        expect(await transcript(remote.right, seed, plan)).toEqual(await transcript(local, seed, plan))
      }),
      { numRuns: 30 }
    )
    await remote.right.close()()
  })

  it('rebuilds the server environment error: reset with a bad seed, step before reset', async () => {
    const env = _.make({ baseUrl: server.url })
    expect(leftOf(await env.step('one')())).toEqual(EnvError.notStarted(env.spec.name))
    expect(leftOf(await env.reset(-1)())).toEqual(EnvError.resetFailed('lock', -1, 'seed must be a non-negative integer'))
    await env.reset(1)()
    expect(leftOf(await env.step('crash')())).toEqual(EnvError.stepFailed('lock', 'crash', 'the lock jammed'))
    await env.close()()
  })

  it('sends the bearer token, and says so when the server refuses it or is full', async () => {
    const started = await EnvServer.start({ factory: () => LockEnv.make(), token: 'tok', maxEnvs: 1 })()
    if (E.isLeft(started)) throw new Error(started.left.reason)
    const guarded = started.right
    try {
      const anonymous = leftOf(await _.make({ baseUrl: guarded.url }).reset(1)())
      expect(EnvError.message(anonymous)).toBe(`http:${guarded.url}: POST ${guarded.url}/create failed: HTTP 401: missing or wrong bearer token`)
      const env = _.make({ baseUrl: guarded.url, token: 'tok' })
      expect(E.isRight(await env.reset(1)())).toBe(true)
      const full = leftOf(await _.make({ baseUrl: guarded.url, token: 'tok', backoffMs: 1 }).reset(1)())
      expect(EnvError.message(full)).toContain('HTTP 503: this server holds its maximum of 1 environments; close one first (after 3 attempts)')
    } finally {
      await guarded.close()()
    }
  })

  it('times out a step that takes too long, naming the call', async () => {
    const env = _.make({ baseUrl: server.url, timeoutMs: 200 })
    await env.reset(1)()
    const error = leftOf(await env.step('hang')())
    expect(error).toEqual(EnvError.timeout(env.spec.name, `POST ${server.url}/step`, 200))
    expect(EnvError.message(error)).toContain('/step timed out after 200 ms')
  })

  it('makes a new server environment when the old one was closed meanwhile', async () => {
    const env = _.make({ baseUrl: server.url })
    await env.reset(4)()
    const before = await fetch(`${server.url}/list_envs`).then((r) => r.json() as Promise<number[]>)
    const mine = before[before.length - 1]!
    await fetch(`${server.url}/close`, { method: 'POST', body: JSON.stringify({ id: mine }) })
    const again = await env.reset(4)()
    expect(E.isRight(again)).toBe(true)
    const after = await fetch(`${server.url}/list_envs`).then((r) => r.json() as Promise<number[]>)
    expect(after).not.toContain(mine)
    await env.close()()
  })

  it('reports a server killed mid-step as a Transport error of that call', async () => {
    const child = await serveInChild()
    try {
      const env = _.make({ baseUrl: child.url, retries: 1, backoffMs: 20 })
      expect(E.isRight(await env.reset(7)())).toBe(true)
      expect(E.isRight(await env.step('one')())).toBe(true)
      const pending = env.step('hang')()
      await new Promise((r) => setTimeout(r, 200))
      await child.kill()
      const error = leftOf(await pending)
      expect(error._tag).toBe('Transport')
      expect(EnvError.message(error)).toContain(`POST ${child.url}/step failed`)
      expect(EnvError.message(error)).toContain('after 2 attempts')
      const later = leftOf(await env.step('two')())
      expect(later._tag).toBe('Transport')
      expect(EnvError.message(later)).toContain('ECONNREFUSED')
    } finally {
      await child.kill()
    }
  })
})

describe('HttpEnv against other AgentGym families', () => {
  const families: ReadonlyArray<{ family: AgentGym.Family; body: string }> = [
    { family: 'alfworld', body: '"game":9,"world_type":"Text"' },
    { family: 'webshop', body: '"env_idx":0,"session_id":9' },
    { family: 'babyai', body: '"data_idx":9' }
  ]
  for (const { family, body } of families)
    it(`speaks ${family}: its id style, reset body, text and reward fields`, async () => {
      const fixture = await AgentGym.start(family)
      try {
        const env = _.make({ baseUrl: fixture.url, family })
        const start = await env.reset(9)()
        if (E.isLeft(start)) throw new Error(EnvError.message(start.left))
        expect(start.right.goal).toBe('Open the lock of safe #9.')
        expect(start.right.text).toContain('Seed 9.')
        expect(fixture.log.some((line) => line.startsWith('POST /reset') && line.includes(body))).toBe(true)
        const results: Env.StepResult[] = []
        for (const digit of LockEnv.combination(9)) {
          const r = await env.step(digit)()
          if (E.isLeft(r)) throw new Error(EnvError.message(r.left))
          results.push(r.right)
        }
        expect(results.map((r) => r.reward)).toEqual([1, 1, 1])
        expect(results.map((r) => r.info.score)).toEqual([1, 2, 3])
        expect(results[2]).toMatchObject({ done: true, won: true, observation: 'Click. The safe #9 opens.' })
        if (family === 'alfworld') expect(results[0]!.info.admissibleActions).toEqual(LockEnv.DIGITS)
        await env.close()()
        expect(fixture.log[fixture.log.length - 1]).toContain(family === 'webshop' ? '"env_idx":0' : '"id":0')
      } finally {
        await fixture.close()
      }
    })

  it('retries a 503 answer and then succeeds; gives up after the retry budget', async () => {
    const fixture = await AgentGym.start('alfworld')
    try {
      const env = _.make({ baseUrl: fixture.url, family: 'alfworld', retries: 2, backoffMs: 5 })
      fixture.unavailable(2)
      expect(E.isRight(await env.reset(1)())).toBe(true)
      expect(fixture.log.filter((l) => l.startsWith('POST /create'))).toHaveLength(3)
      fixture.unavailable(3)
      const error = leftOf(await env.step('one')())
      expect(EnvError.message(error)).toBe(`${env.spec.name}: POST ${fixture.url}/step failed: HTTP 503: {"detail":"busy"} (after 3 attempts)`)
    } finally {
      await fixture.close()
    }
  })

  it('rejects an answer of the wrong shape with the path of the bad field', async () => {
    const fixture = await AgentGym.start('alfworld')
    try {
      const env = _.make({ baseUrl: fixture.url, family: 'alfworld' })
      await env.reset(1)()
      fixture.breakNext('{"observation": 3, "done": false}')
      const error = leftOf(await env.step('one')())
      expect(error._tag).toBe('InvalidResponse')
      expect(EnvError.message(error)).toContain('observation: expected string, got 3')
      fixture.breakNext('<html>oops</html>')
      expect(EnvError.message(leftOf(await env.step('one')()))).toContain('not JSON')
    } finally {
      await fixture.close()
    }
  })
})

describe('HttpEnv.source', () => {
  it('names the environment as its spec does and has no expert', () => {
    const source = _.source({ baseUrl: 'http://127.0.0.1:9/', name: 'remote/w2', maxTurns: 7 })
    expect([source.name, source.maxTurns]).toEqual(['remote/w2', 7])
    expect(source.expertPlan).toBeUndefined()
    expect(_.source({ baseUrl: 'http://127.0.0.1:9/' }).name).toBe('http:http://127.0.0.1:9')
  })
})
