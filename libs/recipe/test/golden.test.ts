/**
 * A golden trace: a tiny recipe (SFT then two RL iterations, on the cpu backend) end to end, its
 * metrics, evaluations and checkpoints' sha256 compared with a recorded trace, bit for bit. A
 * refactor that claims "bit-identical before and after" passes it unchanged; a change meant to
 * change the numbers rewrites the trace (`MTRL_GOLDEN=write npx vitest run test/golden.test.ts`
 * in libs/recipe) and says so in its commit.
 */
import { RunDir } from '@mtrl/experiment'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Pipeline from '../src/Pipeline.js'
import * as Recipe from '../src/Recipe.js'

beforeAll(() => TestBackend.use('cpu'))
const root = mkdtempSync(join(tmpdir(), 'mtrl-golden-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const fixture = join(__dirname, 'fixtures', 'golden-trace.json')

const env = { kind: 'textworld', settings: 'w1-o1-q1' }
const json = {
  name: 'golden',
  seed: 3,
  model: { kind: 'scratch', dModel: 16, layers: 1, heads: 2, maxLen: 192, corpusEpisodes: 10 },
  rollout: { maxNewTokens: 6, systemPrompt: '' },
  stages: [
    { kind: 'sft', env, episodes: 8, epochs: 1, batchSize: 4 },
    { kind: 'rl', env, iterations: 2, algorithm: 'ppo', budget: { seedsPerIteration: 2, groupSize: 2 } }
  ],
  eval: { episodes: 2, batch: 2, split: 'validation' },
  evalAfterEachStage: false
}

/** What is timing, not computation: left out of the trace. */
const timing = /second|time|\/s$|per_s|tokens_per|throughput|rss|memory|_ms$|Ms$|wall/i

const trace = (run: RunDir.RunDir): unknown => ({
  metrics: run.readMetrics().map((m) => Object.fromEntries(Object.entries(m).filter(([k]) => !timing.test(k)))),
  checkpoints: Object.fromEntries(
    ['stage-0', 'stage-1'].map((s) => [
      s,
      createHash('sha256')
        .update(readFileSync(join(run.file('checkpoints'), s, 'end', 'model.safetensors')))
        .digest('hex')
    ])
  )
})

describe('golden trace', () => {
  it('a tiny SFT + PPO run on cpu gives the recorded metrics, evaluations and weights, bit for bit', async () => {
    const recipe = Recipe.decode(json)
    if (E.isLeft(recipe)) throw new Error(recipe.left)
    const run = RunDir.create('golden', join(root, 'run'))
    const ran = await Pipeline.run({ run, backend: { name: 'cpu' }, reporter: { line: () => undefined }, report: false })(recipe.right)()
    if (E.isLeft(ran)) throw new Error(ran.left.message)
    const got = JSON.parse(JSON.stringify(trace(run))) as unknown
    if (process.env['MTRL_GOLDEN'] === 'write') writeFileSync(fixture, `${JSON.stringify(got, null, 1)}\n`)
    const want = JSON.parse(readFileSync(fixture, 'utf8')) as unknown
    expect(got, 'the numbers changed: if that is meant, rewrite the trace with MTRL_GOLDEN=write and say so in the commit').toEqual(want)
  }, 120_000)
})
