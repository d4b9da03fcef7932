import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as EnvServer from '../src/EnvServer.js'
import * as Episode from '../src/Episode.js'
import * as Expert from '../src/Expert.js'
import * as _ from '../src/Fleet.js'
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

/** Wrong twice, then the combination: four turns per episode. */
const plan = (seed: number): ReadonlyArray<string> => ['hm', 'hmm', ...LockEnv.combination(seed)]
const local = async (seed: number): Promise<Episode.Episode> => {
  const played = await Episode.play()(Expert.replay(plan))(LockEnv.make(), seed)()
  if (E.isLeft(played)) throw new Error(Episode.message(played.left))
  return played.right
}

const seeds = Array.from({ length: 40 }, (_, i) => 100 + i)

describe('Fleet.run', () => {
  it('spreads the episodes over the servers and plays each exactly as in-process', async () => {
    const report = await _.run({ urls: servers.map((s) => s.url), agent: Expert.replay(plan), slotsPerServer: 3 })(seeds)()
    expect(report).toMatchObject({ played: seeds.length, failed: 0, retried: 0 })
    expect(report.servers.every((s) => s.played > 0 && s.retired === undefined)).toBe(true)
    expect(report.outcomes.map((o) => o.seed)).toEqual(seeds)
    for (const outcome of report.outcomes) {
      if (outcome._tag !== 'Played') throw new Error('not played')
      expect(outcome.episode).toEqual(await local(outcome.seed))
    }
  })

  it('survives a server killed mid-run: its episodes are retried on the others and counted', async () => {
    const doomed = await serveInChild('lock@doomed')
    try {
      let killing: Promise<void> | undefined
      // The doomed server dies while one of its episodes waits for its third action.
      const agent: Episode.Agent = async (history) => {
        if (history.env.spec.name === 'lock@doomed' && history.turns.length === 2) await (killing ??= doomed.kill())
        return Expert.replay(plan)(history)
      }
      const report = await _.run({ urls: [doomed.url, ...servers.map((s) => s.url)], agent, slotsPerServer: 2, client: { retries: 1, backoffMs: 10 } })(seeds)()
      expect(report.played).toBe(seeds.length)
      expect(report.failed).toBe(0)
      expect(report.retried).toBeGreaterThanOrEqual(1)
      const dead = report.servers[0]!
      // retired by the first request that failed: the waiting episode's step, or the other slot's reset when it comes first
      expect(dead.retired).toMatch(new RegExp(`POST ${doomed.url.replace(/[.]/g, '\\.')}/(step|reset) failed`))
      expect(dead.failedAttempts).toBe(report.retried)
      const retriedOutcomes = report.outcomes.filter((o) => o.attempts.length > 0)
      expect(retriedOutcomes.length).toBe(report.retried)
      for (const outcome of report.outcomes) {
        if (outcome._tag !== 'Played') throw new Error('not played')
        expect({ ...outcome.episode, env: 'lock' }).toEqual(await local(outcome.seed))
        if (outcome.attempts.length > 0) expect(outcome.server).not.toBe(doomed.url)
      }
    } finally {
      await doomed.kill()
    }
  })

  it('fails every seed, with every attempt listed, when no server is alive', async () => {
    const gone = await serveInChild()
    await gone.kill()
    const report = await _.run({ urls: [gone.url], agent: Expert.replay(plan), client: { retries: 0 } })([1, 2, 3])()
    expect(report).toMatchObject({ played: 0, failed: 3 })
    expect(report.servers[0]!.retired).toContain('ECONNREFUSED')
    for (const outcome of report.outcomes) {
      expect(outcome._tag).toBe('Failed')
      expect(outcome.attempts[outcome.attempts.length - 1]!.reason).toMatch(/ECONNREFUSED|no live server left/)
    }
  })

  it('gives up on a seed after maxAttempts failures on healthy servers', async () => {
    const agent: Episode.Agent = async (history) => (history.seed === 7 ? Promise.reject(new Error('no idea')) : Expert.replay(plan)(history))
    const report = await _.run({ urls: servers.map((s) => s.url), agent, maxAttempts: 2 })([6, 7, 8])()
    expect(report).toMatchObject({ played: 2, failed: 1, retried: 1 })
    expect(report.outcomes[1]).toMatchObject({
      _tag: 'Failed',
      seed: 7,
      attempts: [{ reason: expect.stringContaining('no idea') }, { reason: expect.stringContaining('no idea') }]
    })
    expect(report.servers.every((s) => s.retired === undefined)).toBe(true)
  })
})
