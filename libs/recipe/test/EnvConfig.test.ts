import { EnvServer } from '@mtrl/env-http'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Recipe from '../src/Recipe.js'
import { source } from '../src/EnvConfig.js'

const servers: EnvServer.EnvServer[] = []
beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    const started = await EnvServer.start({ factory: () => TextWorld.make(Settings.custom(1, 2, 2)) })()
    if (E.isLeft(started)) throw new Error(started.left.reason)
    servers.push(started.right)
  }
})
afterAll(async () => {
  for (const s of servers) await s.close()()
})

describe('EnvConfig', () => {
  it('{"kind": "http", "servers": [...]} spreads a stage\'s episode slots over the servers, under one name', async () => {
    const env = { kind: 'http', servers: servers.map((s) => s.url), name: 'tw-remote', maxTurns: 6 }
    const decoded = Recipe.decode({ name: 'r', stages: [{ kind: 'rl', env, iterations: 1 }] })
    if (E.isLeft(decoded)) throw new Error(decoded.left)
    const h = source(Recipe.stageEnv(decoded.right.stages[0]!)!)
    expect(h).toMatchObject({ name: 'tw-remote', maxTurns: 6 })
    const envs = Array.from({ length: 4 }, h.make)
    const local = TextWorld.make(Settings.custom(1, 2, 2))
    for (const [i, e] of envs.entries()) {
      const remote = await e.reset(10 + i)()
      expect(remote).toEqual(await local.reset(10 + i)())
      const step = await e.step('look')()
      expect(step).toEqual(await local.step('look')())
    }
    expect(servers.map((s) => s.size())).toEqual([2, 2])
    await Promise.all(envs.map((e) => e.close()()))
    expect(h.expertPlan).toBeUndefined()
  })

  it('{"kind": "textworld", "reward": "intermediate"} plays with TextWorld\'s intermediate reward; a bad value is named', async () => {
    const decoded = Recipe.decode({
      name: 'r',
      stages: [{ kind: 'rl', env: { kind: 'textworld', settings: 'w2-o3-q4', reward: 'intermediate' }, iterations: 1 }]
    })
    if (E.isLeft(decoded)) throw new Error(decoded.left)
    const played = async (config: unknown): Promise<number[]> => {
      const s = source(config as Parameters<typeof source>[0])
      const env = s.make()
      await env.reset(5)()
      const rewards: number[] = []
      for (const command of ['look', ...s.expertPlan!(env)]) {
        const step = await env.step(command)()
        if (E.isLeft(step)) throw new Error(JSON.stringify(step.left))
        rewards.push(step.right.reward)
      }
      return rewards
    }
    // a look leaves the plan as it was (0), each command of the plan brings the win one closer (+1)
    expect(await played(Recipe.stageEnv(decoded.right.stages[0]!))).toEqual([0, 1, 1, 1, 1])
    const scored = Recipe.decode({ name: 'r', stages: [{ kind: 'rl', env: { kind: 'textworld', settings: 'w2-o3-q4' }, iterations: 1 }] })
    if (E.isLeft(scored)) throw new Error(scored.left)
    expect(await played(Recipe.stageEnv(scored.right.stages[0]!))).not.toEqual([0, 1, 1, 1, 1])
    const bad = Recipe.decode({ name: 'r', stages: [{ kind: 'rl', env: { kind: 'textworld', settings: 'w2-o3-q4', reward: 'progress' }, iterations: 1 }] })
    expect(E.isLeft(bad) && bad.left).toMatch(/stages\.0\.env/)
  })

  it('an sft stage on remote servers needs data (they have no expert), before any work', () => {
    const env = { kind: 'http', servers: servers.map((s) => s.url) }
    const decoded = Recipe.decode({ name: 'r', stages: [{ kind: 'sft', env, episodes: 10 }] })
    expect(E.isLeft(decoded) && decoded.left).toMatch(/stages\.0\.env: http environments have no expert/)
  })

  it('rejects an http entry with neither baseUrl nor servers, naming the fields', () => {
    const decoded = Recipe.decode({ name: 'r', stages: [{ kind: 'rl', env: { kind: 'http' }, iterations: 1 }] })
    expect(E.isLeft(decoded) && decoded.left).toMatch(/baseUrl|servers/)
  })
})
