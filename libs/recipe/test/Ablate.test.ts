import { RunDir } from '@mtrl/experiment'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
  stages: [{ kind: 'rl', env, iterations: 1, algorithm: 'grpo', budget: { seedsPerIteration: 1, groupSize: 2 } }],
  eval: { episodes: 2, batch: 2 },
  evalAfterEachStage: false
}

/** GRPO and RLOO cells of `json`, seed 1, into `root/<folder>`, with the reporter's lines. */
const algorithms = (folder: string) => {
  const grid = { 'stages.0.algorithm': ['grpo', 'rloo'] }
  const plan = Recipe.ablationPlan(json, grid, [1])
  if (E.isLeft(plan)) throw new Error(plan.left)
  const out = join(root, folder)
  const lines: string[] = []
  const options = { out, title: 't', recipe: 'r.json', grid, seeds: [1], backend: { name: 'cpu' }, reporter: { line: (text: string) => void lines.push(text) } }
  return { plan: plan.right, out, lines, options }
}

describe('Ablate', () => {
  it('runs every cell and seed into its own folder, and writes ablation.json and report.html with one row per cell', async () => {
    const { plan, out, lines, options } = algorithms('out')
    const rows = await _.run(options)(plan)()
    if (E.isLeft(rows)) throw new Error(rows.left.message)
    expect(rows.right.map((r) => [r.cell, r.env, r.seeds])).toEqual([
      ['algorithm=grpo', 'textworld/w1-o1-q1', 1],
      ['algorithm=rloo', 'textworld/w1-o1-q1', 1]
    ])
    expect(lines.filter((l) => l.startsWith('\n=== cell'))).toEqual([
      '\n=== cell 1/2: algorithm=grpo, seed 1 ===',
      '\n=== cell 2/2: algorithm=rloo, seed 1 ==='
    ])
    const ablation = RunDir.open(out).readJson('ablation.json') as { recipe: string; results: ReadonlyArray<{ run: string }>; rows: unknown }
    expect(ablation.recipe).toBe('r.json')
    expect(ablation.results.map((r) => r.run)).toEqual([
      _.runPath(out, { cell: 'algorithm=grpo', seed: 1 }),
      _.runPath(out, { cell: 'algorithm=rloo', seed: 1 })
    ])
    expect(ablation.rows).toEqual(JSON.parse(JSON.stringify(rows.right)))
    expect(existsSync(join(out, 'report.html'))).toBe(true)
    for (const r of ablation.results) expect(existsSync(join(r.run, 'eval.json'))).toBe(true)
  })

  it('refuses a folder that holds a run unless resuming; resuming keeps finished runs, resumes an unfinished one, and refuses another recipe', async () => {
    const { plan, out, lines, options } = algorithms('resume')
    const first = await _.run(options)(plan)()
    if (E.isLeft(first)) throw new Error(first.left.message)
    const [grpo, rloo] = plan.map((item) => _.runPath(out, item)) as [string, string]
    expect(_.previous(grpo, plan[0]!.recipe)._tag).toBe('Finished')
    // What the run computes decides, not its description or ablation grid (mtrl train --seed N's run of the recipe is its cell's).
    expect(_.previous(grpo, { ...plan[0]!.recipe, description: 'another text', ablation: { grid: {} } })._tag).toBe('Finished')
    expect(_.previous(grpo, { ...plan[0]!.recipe, seed: 2 })._tag).toBe('Other')
    const grpoMetrics = readFileSync(join(grpo, 'metrics.jsonl'), 'utf8')

    // Without --resume: an error naming the folder, and nothing overwritten.
    const again = await _.run(options)(plan)()
    expect(E.isLeft(again) && again.left.message).toContain(`${grpo} already holds a run of cell algorithm=grpo, seed 1: continue the ablation with --resume`)
    expect(readFileSync(join(grpo, 'metrics.jsonl'), 'utf8')).toBe(grpoMetrics)

    // The second run as if killed before it finished: resuming keeps the first and finishes the second.
    rmSync(join(rloo, 'eval.json'))
    writeFileSync(join(rloo, 'progress.json'), JSON.stringify({ nextStage: 0, evals: [], finished: false }))
    expect(_.previous(rloo, plan[1]!.recipe)._tag).toBe('Unfinished')
    lines.length = 0
    const resumed = await _.run({ ...options, resume: true })(plan)()
    if (E.isLeft(resumed)) throw new Error(resumed.left.message)
    expect(lines).toContain(`finished before, kept: ${grpo}`)
    expect(lines).not.toContain(`finished before, kept: ${rloo}`)
    expect(readFileSync(join(grpo, 'metrics.jsonl'), 'utf8')).toBe(grpoMetrics)
    expect(existsSync(join(rloo, 'eval.json'))).toBe(true)
    expect(resumed.right).toEqual(first.right)
    const rlooMetrics = readFileSync(join(rloo, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(rlooMetrics.filter((m) => m['kind'] === 'rl').map((m) => m['iteration'])).toEqual([0])

    // Another recipe in the same folder (here: the other algorithm's plan) is refused, even when resuming.
    const swapped = plan.map((item, i) => ({ ...item, recipe: plan[1 - i]!.recipe }))
    expect(_.previous(grpo, swapped[0]!.recipe)._tag).toBe('Other')
    const other = await _.run({ ...options, resume: true })(swapped)()
    expect(E.isLeft(other) && other.left.message).toContain(`${grpo} holds a run of another recipe than cell algorithm=grpo, seed 1`)
  })

  it('names folders by the cell and the time', () => {
    expect(_.runPath('o', { cell: 'lr=1e-3,x={"a":1}', seed: 2 })).toBe(join('o', 'lr=1e-3,x=_a_1_-seed2'))
    expect(_.defaultOut('r', new Date('2026-12-02T10:15:00.000Z'))).toBe(join('runs', 'r-ablate-20261202T101500'))
  })
})
