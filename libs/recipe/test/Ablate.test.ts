import { RunDir } from '@mtrl/experiment'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Ablate.js'
import * as Recipe from '../src/Recipe.js'

beforeAll(() => TestBackend.use('cpu'))
const root = mkdtempSync(join(tmpdir(), 'mtrl-ablate-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const env = { kind: 'textworld', settings: 'w1-o1-q1' }
const json = {
  name: 'ablate-test',
  model: { kind: 'scratch', dModel: 16, layers: 1, heads: 2, maxLen: 192, corpusEpisodes: 10 },
  rollout: { maxNewTokens: 6, systemPrompt: '' },
  stages: [{ kind: 'rl', env, iterations: 1, algorithm: 'grpo', seedsPerIteration: 1, groupSize: 2 }],
  eval: { episodes: 2, batch: 2 },
  evalAfterEachStage: false
}

describe('Ablate', () => {
  it('runs every cell and seed into its own folder, and writes ablation.json and report.html with one row per cell', async () => {
    const grid = { 'stages.0.algorithm': ['grpo', 'rloo'] }
    const plan = Recipe.ablationPlan(json, grid, [1])
    if (E.isLeft(plan)) throw new Error(plan.left)
    const out = join(root, 'out')
    const lines: string[] = []
    const options = { out, title: 't', recipe: 'r.json', grid, seeds: [1], backend: { name: 'cpu' }, reporter: { line: (text: string) => void lines.push(text) } }
    const rows = await _.run(options)(plan.right)()
    if (E.isLeft(rows)) throw new Error(rows.left.message)
    expect(rows.right.map((r) => [r.cell, r.env, r.seeds])).toEqual([
      ['algorithm=grpo', 'textworld/w1-o1-q1', 1],
      ['algorithm=rloo', 'textworld/w1-o1-q1', 1]
    ])
    expect(lines.filter((l) => l.startsWith('\n=== cell'))).toEqual(['\n=== cell 1/2: algorithm=grpo, seed 1 ===', '\n=== cell 2/2: algorithm=rloo, seed 1 ==='])
    const ablation = RunDir.open(out).readJson('ablation.json') as { recipe: string; results: ReadonlyArray<{ run: string }>; rows: unknown }
    expect(ablation.recipe).toBe('r.json')
    expect(ablation.results.map((r) => r.run)).toEqual([_.runPath(out, { cell: 'algorithm=grpo', seed: 1 }), _.runPath(out, { cell: 'algorithm=rloo', seed: 1 })])
    expect(ablation.rows).toEqual(JSON.parse(JSON.stringify(rows.right)))
    expect(existsSync(join(out, 'report.html'))).toBe(true)
    for (const r of ablation.results) expect(existsSync(join(r.run, 'eval.json'))).toBe(true)
  })

  it('names folders by the cell and the time', () => {
    expect(_.runPath('o', { cell: 'lr=1e-3,x={"a":1}', seed: 2 })).toBe(join('o', 'lr=1e-3,x=_a_1_-seed2'))
    expect(_.defaultOut('r', new Date('2026-12-02T10:15:00.000Z'))).toBe(join('runs', 'r-ablate-20261202T101500'))
  })
})
