import { RunDir } from '@mtrl/experiment'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Launch.js'
import * as Recipe from '../src/Recipe.js'

beforeAll(() => TestBackend.use('cpu'))
const root = mkdtempSync(join(tmpdir(), 'mtrl-launch-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const recipeOf = (json: unknown): Recipe.Resolved => {
  const decoded = Recipe.decode(json)
  if (E.isLeft(decoded)) throw new Error(decoded.left)
  return decoded.right
}

const tiny = recipeOf({
  name: 'launch-test',
  model: { kind: 'scratch', dModel: 16, layers: 1, heads: 2, maxLen: 192, corpusEpisodes: 10 },
  rollout: { maxNewTokens: 6, systemPrompt: '' },
  stages: [{ kind: 'rl', env: { kind: 'textworld', settings: 'w1-o1-q1' }, iterations: 1, algorithm: 'grpo', budget: { seedsPerIteration: 1, groupSize: 2 } }],
  eval: { episodes: 2, batch: 2 },
  evalAfterEachStage: false
})

/** Launches `recipe` into `root/<folder>`, with the reporter's lines. */
const launch = async (recipe: Recipe.Resolved, folder: string, resume = false) => {
  const lines: string[] = []
  const run = RunDir.create(recipe.name, join(root, folder))
  const options = { run, backend: { name: 'cpu' }, reporter: { line: (l: string) => void lines.push(l) }, resume, workerBin: '/no/such/bin.mjs' }
  return { run, lines, result: await _.run(options)(recipe)() }
}

describe('Launch.withScaleOut', () => {
  it('lays the given settings over the recipe scaleOut, and leaves the recipe alone when none is given', () => {
    const recipe = { ...tiny, scaleOut: { redis: 'redis://a:6379', groupsPerJob: 2 } }
    expect(_.withScaleOut({})(recipe)).toBe(recipe)
    expect(_.withScaleOut({ redis: undefined, workers: undefined })(recipe)).toBe(recipe)
    expect(_.withScaleOut({ workers: 3, queue: 'q' })(recipe).scaleOut).toEqual({ redis: 'redis://a:6379', groupsPerJob: 2, workers: 3, queue: 'q' })
    expect(_.withScaleOut({ redis: 'redis://b:6379' })(tiny).scaleOut).toEqual({ redis: 'redis://b:6379' })
  })
})

describe('Launch.run', () => {
  it('records the backend, names the run, and runs the pipeline to its summary without a scale-out', async () => {
    const { run, lines, result } = await launch(tiny, 'plain')
    if (E.isLeft(result)) throw new Error(result.left.message)
    expect(lines[0]).toBe(`run launch-test -> ${run.path}`)
    expect(lines.some((l) => l.startsWith('scale-out'))).toBe(false)
    expect(JSON.parse(readFileSync(run.file('backend.json'), 'utf8'))).toEqual({ name: 'cpu' })
    expect(result.right.run).toBe(run.path)
    expect(result.right.evals.map((e) => e.phase)).toHaveLength(1)
    expect(existsSync(run.file('eval.json'))).toBe(true)
  }, 120_000)

  it("fails before any work, naming the queue, when the recipe's scale-out cannot start", async () => {
    const recipe = _.withScaleOut({ redis: 'http://nowhere:6379' })(tiny)
    const { run, lines, result } = await launch(recipe, 'bad-queue', true)
    expect(result).toEqual(
      E.left({
        _tag: 'Failed',
        message: 'Redis at http://nowhere:6379 is not reachable: the URL must start with redis:// or rediss:// (is redis-server running there?)'
      })
    )
    expect(lines).toEqual([`resuming launch-test -> ${run.path}`])
    expect(existsSync(run.file('backend.json'))).toBe(true)
    expect(existsSync(run.file('progress.json'))).toBe(false)
  })
})
