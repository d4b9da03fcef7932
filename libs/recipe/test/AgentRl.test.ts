import { RunDir } from '@mtrl/experiment'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/AgentRl.js'
import agent from './fixtures/textAgent.js'

beforeAll(() => TestBackend.use('cpu'))
const root = mkdtempSync(join(tmpdir(), 'mtrl-agentrl-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const env = { kind: 'textworld', settings: 'w1-o1-q1' }
const recipe = {
  name: 'agent-rl-test',
  seed: 3,
  model: { kind: 'scratch', dModel: 16, layers: 1, heads: 2, maxLen: 192, corpusEpisodes: 10 },
  rollout: { maxNewTokens: 6, systemPrompt: '' },
  stages: [
    { kind: 'sft', env, episodes: 8, epochs: 1, batchSize: 4 },
    { kind: 'rl', env, iterations: 2, algorithm: 'grpo', budget: { seedsPerIteration: 1, groupSize: 2 } }
  ],
  eval: { episodes: 2, batch: 2 },
  evalBeforeTraining: false
}

describe('AgentRl.train', () => {
  it('runs a whole recipe (a JSON value or a file) with the given agent function playing its RL stages through the endpoint', async () => {
    const lines: string[] = []
    const dir = join(root, 'value')
    const summary = await _.train({ agent, recipe, runDir: dir, backend: { name: 'cpu' }, line: (l) => void lines.push(l) })
    if (E.isLeft(summary)) throw new Error(summary.left)
    expect(summary.right.evals.map((e) => e.phase)).toEqual(['after stage 1 (sft on textworld/w1-o1-q1)', 'after stage 2 (rl on textworld/w1-o1-q1)'])
    expect(lines.some((l) => l.includes('episodes played by the agent'))).toBe(true)
    const iterations = RunDir.open(dir)
      .readMetrics()
      .filter((m) => m['kind'] === 'rl')
    expect(iterations).toHaveLength(2)
    for (const m of iterations) expect(Number.isFinite(m['loss/policy'])).toBe(true)
    expect(existsSync(join(dir, 'checkpoints', 'stage-1', 'end'))).toBe(true)

    const file = join(root, 'recipe.json')
    writeFileSync(file, JSON.stringify({ ...recipe, stages: [recipe.stages[1]] }))
    const fromFile = await _.train({ agent, recipe: file, runDir: join(root, 'file'), backend: { name: 'cpu' }, line: () => undefined })
    expect(E.isRight(fromFile)).toBe(true)
  })

  it('says why it cannot start: a bad recipe (naming the field), no RL stage, an unreadable file', async () => {
    const bad = await _.train({ agent, recipe: { ...recipe, stages: [{ ...recipe.stages[1], iteratons: 2 }] }, backend: { name: 'cpu' } })
    expect(E.isLeft(bad) && bad.left).toMatch(/stages\.0\.iteratons: unknown field \(did you mean "iterations"\?\)/)
    const sftOnly = await _.train({ agent, recipe: { ...recipe, stages: [recipe.stages[0]] }, backend: { name: 'cpu' } })
    expect(sftOnly).toEqual(E.left('agent-rl-test: the recipe has no rl stage for the agent to play'))
    const missing = await _.train({ agent, recipe: join(root, 'none.json'), backend: { name: 'cpu' } })
    expect(E.isLeft(missing) && missing.left).toMatch(/none\.json: ENOENT/)
  })
})
