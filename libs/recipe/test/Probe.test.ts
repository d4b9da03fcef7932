import { Settings, TextWorld } from '@mtrl/env-textworld'
import { Sampler } from '@mtrl/policy'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Model from '../src/Model.js'
import * as _ from '../src/Probe.js'
import * as Recipe from '../src/Recipe.js'

beforeAll(() => TestBackend.use('cpu'))

const base = join(resolve(__dirname, '..', '..', '..'), 'models', 'base')
const options: _.Options = { verb: 'unlock', episodes: 12, split: 'validation', maxTurns: 40 }
const source = TextWorld.source(Settings.custom(4, 6, 8))
afterAll(() => source.dispose())

const statesOf = async (): Promise<ReadonlyArray<_.State>> => {
  const states = await _.expertStates(options)(source)()
  if (E.isLeft(states)) throw new Error(states.left.message)
  return states.right
}

describe('Probe', () => {
  it("finds the states where the expert's next command is the verb's: replaying the steps reaches a state where that command is admissible", async () => {
    const states = await statesOf()
    // most w4-o6-q8 quests need a key (94 of 100 test games)
    expect(states.length).toBeGreaterThanOrEqual(8)
    const env = source.make()
    try {
      for (const state of states) {
        expect(state.command).toMatch(/^unlock .+ with .+$/)
        const start = await env.reset(state.seed)()
        if (E.isLeft(start)) throw new Error('reset')
        let admissible = start.right.info.admissibleActions
        for (const step of state.steps) {
          const r = await env.step(step.action)()
          if (E.isLeft(r)) throw new Error('step')
          expect(r.right.info.valid).toBe(true)
          expect(r.right.observation).toBe(step.observation)
          admissible = r.right.info.admissibleActions
        }
        expect(admissible).toContain(state.command)
      }
    } finally {
      await env.close()()
    }
  })

  it("scores the expert's command where the policy reads it: the greedy reply's first token is the likeliest, a reply's probability at most its first token's", async () => {
    const [state] = await statesOf()
    const agent = await Model.pretrained({ kind: 'base', path: base })()
    if (E.isLeft(agent)) throw new Error(agent.left.message)
    try {
      const session = Sampler.make(agent.right.policy, { slots: 1, maxLen: agent.right.contextLength })
      const score = _.score(agent.right, '', 'plain', session)
      const expert = score(state!)!
      expect(expert.first).toBeGreaterThan(0)
      expect(expert.command).toBeLessThanOrEqual(expert.first)
      // the greedy action scored as if it were the command: its first token is the argmax there
      const greedy = score({ ...state!, command: expert.greedy })!
      expect(greedy.greedy).toBe(expert.greedy)
      expect(greedy.first).toBeGreaterThanOrEqual(expert.first)
      expect(greedy.first).toBeGreaterThan(0.05)
      // a context longer than the agent's is left out, not cut
      expect(score({ ...state!, text: 'a room '.repeat(agent.right.contextLength) })).toBeUndefined()
      // the same state again in the reused session: the same scores
      expect(score(state!)).toEqual(expert)
      session.dispose()
    } finally {
      agent.right.dispose()
    }
  }, 60_000)

  it('probes a model on a recipe: the shipped base writes unlock where the expert does, with a small probability', async () => {
    const recipe = Recipe.decode({
      name: 'probe',
      stages: [{ kind: 'sft', env: { kind: 'textworld', settings: 'w4-o6-q8' }, episodes: 1 }],
      rollout: { systemPrompt: '' },
      eval: { envs: [{ kind: 'textworld', settings: 'w4-o6-q8' }] }
    })
    if (E.isLeft(recipe)) throw new Error(recipe.left)
    const result = await _.run({ ...options, episodes: 6 })({ recipe: recipe.right, model: { kind: 'base', path: base } })()
    if (E.isLeft(result)) throw new Error(result.left.message)
    const { states, tooLong, first, command, greedyVerbs } = result.right
    expect(states + tooLong).toBeGreaterThanOrEqual(4)
    expect(first).toBeGreaterThan(0.001)
    expect(first).toBeLessThan(0.5)
    expect(command).toBeLessThanOrEqual(first)
    expect(greedyVerbs.reduce((n, [, c]) => n + c, 0)).toBe(states)
  }, 120_000)

  it('fails for an environment without an expert, naming it', async () => {
    const noExpert = { ...source, expertPlan: undefined }
    const result = await _.expertStates(options)(noExpert)()
    expect(E.isLeft(result) && result.left.message).toBe(`${source.name} has no expert to probe with`)
  })
})
