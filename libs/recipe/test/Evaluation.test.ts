import { Ledger, RunDir } from '@mtrl/experiment'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Evaluation.js'
import * as Pipeline from '../src/Pipeline.js'
import * as Recipe from '../src/Recipe.js'

beforeAll(() => TestBackend.use('cpu'))
const root = mkdtempSync(join(tmpdir(), 'mtrl-evaluation-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const env = { kind: 'textworld', settings: 'w1-o1-q1' }
const json = {
  name: 'evaluation-test',
  seed: 2,
  model: { kind: 'scratch', dModel: 16, layers: 1, heads: 2, maxLen: 192, corpusEpisodes: 10 },
  rollout: { maxNewTokens: 6, systemPrompt: '' },
  stages: [{ kind: 'sft', env, episodes: 8, epochs: 1, batchSize: 4 }],
  eval: { episodes: 3, batch: 3, temperature: 1 },
  evalAfterEachStage: false
}

/** One trained run (the recipe above), shared by the tests that read it. */
let training: Promise<{ run: RunDir.RunDir; recipe: Recipe.Resolved; summary: Pipeline.Summary }> | undefined
const trained = () =>
  (training ??= (async () => {
    const run = RunDir.create('t', join(root, 'run'))
    const recipe = Recipe.decode(json)
    if (E.isLeft(recipe)) throw new Error(recipe.left)
    const summary = await Pipeline.run({ run, backend: { name: 'cpu' }, reporter: { line: () => undefined } })(recipe.right)()
    if (E.isLeft(summary)) throw new Error(summary.left.message)
    return { run, recipe: recipe.right, summary: summary.right }
  })())

describe('Evaluation', () => {
  it("a run's final checkpoint on the run's evaluation reproduces its last evaluation, with a transcript per episode", async () => {
    const { run, summary } = await trained()
    const target = _.ofRun(run)(json)
    if (E.isLeft(target)) throw new Error(target.left)
    expect(target.right.model).toEqual({ kind: 'checkpoint', path: join(run.path, 'checkpoints', 'stage-0', 'end') })
    const transcripts: unknown[] = []
    const results = await _.run({ onTranscript: (t) => transcripts.push(t) })(target.right)()
    expect(results).toEqual(E.right(summary.evals[summary.evals.length - 1]!.results))
    expect(transcripts).toHaveLength(3)
  })

  it("a checkpoint of a run plays with the run's rollout settings, seed and evaluation settings on the given environment", async () => {
    const { run, recipe, summary } = await trained()
    const path = join(run.path, 'checkpoints', 'stage-0', 'end')
    const played = recipe.eval.envs[0]!
    const target = _.ofRunCheckpoint(run, path, played)(json)
    if (E.isLeft(target)) throw new Error(target.left)
    expect(target.right.recipe.rollout).toEqual(recipe.rollout)
    expect(target.right.recipe.rollout?.systemPrompt).toBe('')
    expect(target.right.recipe.eval).toEqual({ ...recipe.eval, envs: [played] })
    expect(await _.run()(target.right)()).toEqual(E.right(summary.evals[summary.evals.length - 1]!.results))
    const other = { kind: 'alfworld', settings: {} } as const
    expect(_.ofRunCheckpoint(run, path, other)(json)).toMatchObject(E.right({ recipe: { eval: { envs: [other] } }, model: { kind: 'checkpoint', path } }))
    const bad = _.ofRunCheckpoint(run, path, played)({ ...json, seed: -1 })
    expect(E.isLeft(bad) && bad.left).toMatch(new RegExp(`^${run.file('recipe.json')}: invalid recipe`))
  })

  it('on test seeds with a ledger: a run records its look, the same checkpoint again reproduces it, another checkpoint of the recipe version and seed is refused before loading', async () => {
    const { run, recipe, summary } = await trained()
    const ledger = join(root, 'ledger', 'test-looks.jsonl')
    const looks = { ledger, backend: 'cpu' }
    const lines = () =>
      readFileSync(ledger, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    // a second run of the recipe (same seed: the same weights on cpu) records its planned evaluation, never refused
    const rerun = RunDir.create('t', join(root, 'rerun'))
    const again = await Pipeline.run({ run: rerun, backend: { name: 'cpu' }, reporter: { line: () => undefined }, ledger })(recipe)()
    expect(E.isRight(again)).toBe(true)
    expect(lines()).toHaveLength(1)
    expect(lines()[0]).toMatchObject({ recipe: 'evaluation-test', seed: 2, run: rerun.path, via: 'run', firstSeed: 4_000_000_000, episodes: 3, backend: 'cpu' })
    const final = join(run.path, 'checkpoints', 'stage-0', 'end')
    expect(lines()[0]!['checkpoint']).toBe(Ledger.checkpointHash(final))
    // mtrl eval of the first run's final checkpoint: the same weights, the same figure, not recorded again
    const notes: string[] = []
    const target = _.ofRun(run)(json)
    if (E.isLeft(target)) throw new Error(target.left)
    expect(await _.run({ looks, note: (n) => notes.push(n) })(target.right)()).toEqual(E.right(summary.evals[summary.evals.length - 1]!.results))
    expect(notes.join('\n')).toContain('reproduces')
    expect(lines()).toHaveLength(1)
    // another checkpoint of the same recipe version and seed (here: a copy with one more file) is refused, naming the earlier look
    const other = join(run.path, 'checkpoints', 'stage-0', 'other')
    cpSync(final, other, { recursive: true })
    writeFileSync(join(other, 'notes.txt'), 'another checkpoint')
    const ofOther = _.ofRunCheckpoint(run, other, recipe.eval.envs[0]!)(json)
    if (E.isLeft(ofOther)) throw new Error(ofOther.left)
    const refused = await _.run({ looks })(ofOther.right)()
    expect(E.isLeft(refused) && refused.left.message).toMatch(/refused: a second look at the test seeds for recipe evaluation-test .* training seed 2/s)
    expect(E.isLeft(refused) && refused.left.message).toContain(`run ${rerun.path}`)
    expect(E.isLeft(refused) && refused.left.message).toContain('--split validation')
    // on validation seeds nothing is checked or recorded
    const onValidation = {
      ...ofOther.right,
      recipe: { ...ofOther.right.recipe, eval: { ...ofOther.right.recipe.eval, split: 'validation' as const, seedBase: 3_500_000_000 } }
    }
    expect(E.isRight(await _.run({ looks })(onValidation)())).toBe(true)
    expect(lines()).toHaveLength(1)
  })

  it('a run without a finished stage, or with a bad recipe, is an error naming it', () => {
    const run = RunDir.create('t', join(root, 'empty'))
    expect(_.ofRun(run)(json)).toEqual(E.left(`${run.path} has no finished stage to evaluate`))
    const bad = _.ofRun(run)({ ...json, seed: -1 })
    expect(E.isLeft(bad) && bad.left).toMatch(new RegExp(`^${run.file('recipe.json')}: invalid recipe`))
  })

  it('a folder on one environment gets the default evaluation', () => {
    const target = _.ofFolder('/models/m', 'hf', { kind: 'alfworld', settings: {} })
    expect(target.model).toEqual({ kind: 'hf', path: '/models/m' })
    expect(target.recipe.eval).toMatchObject({ episodes: 100, envs: [{ kind: 'alfworld', settings: {} }] })
  })

  it('a model that cannot be loaded fails before any episode', async () => {
    const result = await _.run()(_.ofFolder(join(root, 'missing'), 'checkpoint', { kind: 'alfworld', settings: {} }))()
    expect(E.isLeft(result) && result.left._tag).toBe('Failed')
  })
})
