import { RunDir } from '@mtrl/experiment'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Pipeline from '../src/Pipeline.js'
import * as Recipe from '../src/Recipe.js'

beforeAll(() => TestBackend.use('cpu'))
const root = mkdtempSync(join(tmpdir(), 'mtrl-sft-only-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const env = { kind: 'textworld', settings: 'w1-o1-q1' }
const full = (() => {
  const decoded = Recipe.decode({
    name: 'sft-only-test',
    seed: 3,
    model: { kind: 'scratch', dModel: 16, layers: 1, heads: 2, maxLen: 160, corpusEpisodes: 12 },
    rollout: { maxNewTokens: 6, systemPrompt: '' },
    stages: [
      { kind: 'sft', env, episodes: 8, epochs: 1, batchSize: 4 },
      { kind: 'rl', env, iterations: 1, algorithm: 'reinforce++', budget: { seedsPerIteration: 2, groupSize: 1 } }
    ],
    eval: { episodes: 2, batch: 2 },
    evalAfterEachStage: false
  })
  if (E.isLeft(decoded)) throw new Error(decoded.left)
  return decoded.right
})()
const backend = { name: 'cpu' }
const quiet: Pipeline.Reporter = { line: () => undefined }

/** config.json without the recipe's `corpusEnvs`, which it records (the narrowed recipe pins them). */
const comparable = (file: string, bytes: Buffer): string =>
  file === 'config.json'
    ? JSON.stringify(JSON.parse(bytes.toString('utf8'), (key, value: unknown) => (key === 'corpusEnvs' ? undefined : value)))
    : bytes.toString('base64')

/** The files of a run's first stage's checkpoint (weights, tokenizer, config), by name. */
const stageZero = async (recipe: Recipe.Resolved, name: string): Promise<Record<string, Buffer>> => {
  const run = RunDir.create('t', join(root, name))
  const result = await Pipeline.run({ run, backend, reporter: quiet, report: false })(recipe)()
  if (E.isLeft(result)) throw new Error(result.left.message)
  const dir = join(run.path, 'checkpoints', 'stage-0', 'end')
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f))]))
}

describe('Recipe.sftOnly (mtrl sft)', () => {
  it("trains the model the whole recipe's SFT stage trains: the same tokenizer and weights, where the SFT stage alone builds another vocabulary", async () => {
    const narrowed = Recipe.sftOnly(full)!
    expect(narrowed.stages.map((s) => s.kind)).toEqual(['sft'])
    expect(Recipe.corpusEnvs(narrowed)).toEqual(Recipe.corpusEnvs(full))
    expect(Recipe.corpusEnvs(full)).toHaveLength(3) // the SFT stage's, the RL stage's and the evaluation's environment: one corpus each
    const whole = await stageZero(full, 'whole')
    const alone = await stageZero(narrowed, 'alone')
    expect(Object.keys(alone).sort()).toEqual(Object.keys(whole).sort())
    for (const file of Object.keys(whole)) expect(comparable(file, alone[file]!) === comparable(file, whole[file]!), file).toBe(true)
    // the control: the SFT stage without the pinned environments reads two corpora instead of three
    const unpinned = await stageZero({ ...full, stages: narrowed.stages }, 'unpinned')
    const differs = Object.keys(whole).filter((file) => comparable(file, unpinned[file]!) !== comparable(file, whole[file]!))
    expect(differs).toContain('tokenizer.json')
  })

  it('a recipe without an SFT stage has nothing to narrow to; a recipe from a checkpoint keeps its model', () => {
    expect(Recipe.sftOnly({ ...full, stages: full.stages.filter((s) => s.kind === 'rl') })).toBeUndefined()
    const fromCheckpoint = { ...full, model: { kind: 'checkpoint' as const, path: 'runs/x/checkpoints/stage-0/end' } }
    expect(Recipe.sftOnly(fromCheckpoint)?.model).toEqual(fromCheckpoint.model)
  })
})
