import { RunDir } from '@mtrl/experiment'
import { Agent, WordTokenizer } from '@mtrl/policy'
import { Corpus, Seeds } from '@mtrl/pretrain'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as PretrainStage from '../src/internal/pretrainStage.js'
import * as Pipeline from '../src/Pipeline.js'
import * as Recipe from '../src/Recipe.js'

beforeAll(() => TestBackend.use('cpu'))
const root = mkdtempSync(join(tmpdir(), 'mtrl-pretrain-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const env = { kind: 'textworld', settings: 'w1-o1-q1' }
const recipe = (stages: ReadonlyArray<Record<string, unknown>>, extra: Record<string, unknown> = {}): Recipe.Resolved => {
  const decoded = Recipe.decode({
    name: 'pretrain-test',
    seed: 2,
    model: { kind: 'scratch', dModel: 16, layers: 1, heads: 2, maxLen: 160 },
    rollout: { maxNewTokens: 6, systemPrompt: '' },
    stages,
    eval: { episodes: 2, batch: 2 },
    ...extra
  })
  if (E.isLeft(decoded)) throw new Error(decoded.left)
  return decoded.right
}
const pretrain = { kind: 'pretrain', episodes: 40, maxTurns: 6, batchSize: 8, warmupSteps: 1 }
const sft = { kind: 'sft', env, episodes: 8, epochs: 1, batchSize: 4 }
const quiet = (lines: string[] = []): Pipeline.Reporter => ({ line: (text) => void lines.push(text) })
const backend = { name: 'cpu' }
const label = 'stage 1 (pretrain on textworld w1-8 o1-12 q1-8 + cooking + alfworld/train)'
// One pretrain-only run, straight through: what the stopped and resumed run must equal, and the
// base another recipe starts from (trained once for both tests, by whichever runs first).
const pretrainOnly = recipe([pretrain], { evalAfterEachStage: false })
let straight: Promise<RunDir.RunDir> | undefined
const straightRun = (): Promise<RunDir.RunDir> =>
  (straight ??= (async () => {
    const whole = RunDir.create('t', join(root, 'whole'))
    const result = await Pipeline.run({ run: whole, backend, reporter: quiet() })(pretrainOnly)()
    if (E.isLeft(result)) throw new Error(result.left.message)
    return whole
  })())

describe('a pretrain stage', () => {
  it("first with a scratch model: the tokenizer is the pretraining transcripts', then it trains on every token and a later stage goes on", async () => {
    const run = RunDir.create('t', join(root, 'first'))
    const lines: string[] = []
    const r = recipe([pretrain, sft], { evalBeforeTraining: false })
    const result = await Pipeline.run({ run, backend, reporter: quiet(lines) })(r)()
    if (E.isLeft(result)) throw new Error(result.left.message)
    expect(lines).toContain('building the agent (word tokenizer from the 40 pretraining transcripts of stage 1)')
    expect(result.right.evals.map((e) => e.phase)).toEqual([`after ${label}`, 'after stage 2 (sft on textworld/w1-o1-q1)'])
    // the reference tokenizer: the same transcripts, the same build
    const transcripts = await PretrainStage.transcripts(r, 0, r.stages[0] as Recipe.PretrainStage)()
    if (E.isLeft(transcripts)) throw new Error(transcripts.left.message)
    // no evaluation seed (the recipe's held-out games, the SFT checks' range) and no training seed
    for (const t of transcripts.right) {
      expect(Seeds.isPretrainSeed(t.seed)).toBe(true)
      expect(t.seed).toBeLessThan(Math.min(r.eval.seedBase, Recipe.untilSeedBase))
      expect(t.seed).toBeGreaterThanOrEqual(2 ** 31)
    }
    const reference = WordTokenizer.build({ ...WordTokenizer.defaultOptions, maxVocab: 2048 })(Corpus.texts(transcripts.right))
    const base = await Agent.load(join(run.path, 'checkpoints', 'stage-0', 'end'))()
    if (E.isLeft(base)) throw new Error(JSON.stringify(base.left))
    expect(base.right.tokenizer.vocabSize).toBe(reference.vocabSize)
    const words = transcripts.right.map((t) => t.goal).join(' ')
    expect(Array.from(base.right.tokenizer.encode(words))).toEqual(Array.from(reference.encode(words)))
    base.right.dispose()
    // every token trained on: the action loss and the context loss, both finite; steps of stage 0
    const steps = run.readMetrics().filter((m) => m['kind'] === 'sft' && m['stage'] === 0)
    // 40 games, those whose prompt and first command fit 160 tokens, 2% held out, batches of 8
    expect(steps.length).toBeGreaterThanOrEqual(1)
    expect(steps.length).toBeLessThanOrEqual(5)
    for (const m of steps) expect([m['loss/sft'], m['loss/context']].every((x) => Number.isFinite(x as number))).toBe(true)
    expect(lines.some((l) => l.startsWith(`${label}: `) && / transcripts \(of 40 games, \d+ won by chance\), \d+ commands, \d+ tokens/.test(l))).toBe(true)
  })

  it('lowers the next-token loss', async () => {
    const run = RunDir.create('t', join(root, 'falls'))
    const small = [{ kind: 'textworld', rooms: [1, 2], objects: [1, 2], questLength: [1, 2] }]
    const r = recipe([{ ...pretrain, mixture: small, episodes: 48, epochs: 2, learningRate: 0.02, heldOutFraction: 0.1 }])
    const result = await Pipeline.run({ run, backend, reporter: quiet() })(r)()
    if (E.isLeft(result)) throw new Error(result.left.message)
    const steps = run.readMetrics().filter((m) => m['kind'] === 'sft')
    const mean = (xs: ReadonlyArray<Record<string, unknown>>): number =>
      xs.reduce((a, m) => a + (m['loss/sft'] as number) + (m['loss/context'] as number), 0) / xs.length
    expect(mean(steps.slice(-3))).toBeLessThan(mean(steps.slice(0, 3)) - 0.5)
    const epochs = run.readMetrics().filter((m) => m['kind'] === 'sft-epoch')
    expect(epochs.map((m) => m['loss/heldout'] as number).reduce((a, b) => Math.min(a, b))).toBeLessThan(epochs[0]!['loss/heldout'] as number)
    expect(epochs.at(-1)!['loss/heldout']).toBeLessThan(epochs[0]!['loss/heldout'] as number)
    // a recipe of pretrain stages only evaluates nothing (no environment of its own)
    expect(result.right.evals).toEqual([])
  })

  it('stops after a checkpoint and resumes on the same transcripts', async () => {
    const run = RunDir.create('t', join(root, 'stopped'))
    const r = pretrainOnly
    const stopped = await Pipeline.run({ run, backend, reporter: quiet(), stop: { requested: () => true } })(r)()
    expect(stopped).toEqual(
      E.left({ _tag: 'Stopped', message: `stopped during ${label} after step 1 (checkpoint written); continue with: mtrl resume ${run.path}` })
    )
    const lines: string[] = []
    const resumed = await Pipeline.run({ run, backend, reporter: quiet(lines), resume: true })(r)()
    expect(E.isRight(resumed)).toBe(true)
    expect(lines).toContain(`${label}: resuming after step 1`)
    const whole = await straightRun()
    const losses = (d: RunDir.RunDir) =>
      d
        .readMetrics()
        .filter((m) => m['kind'] === 'sft')
        .map((m) => m['loss/sft'])
    expect(losses(run)).toEqual(losses(whole))
  })

  it('builds a base that another recipe starts from ({"kind": "base"}: the run folder or its checkpoint)', async () => {
    const built = await straightRun()
    // as `mtrl train` leaves a run folder
    built.writeJson('recipe.json', pretrainOnly)
    for (const path of [built.path, join(built.path, 'checkpoints', 'stage-0', 'end')]) {
      const lines: string[] = []
      const run = RunDir.create('t', join(root, `from-base-${path.length}`))
      const next = await Pipeline.run({ run, backend, reporter: quiet(lines) })(recipe([sft], { model: { kind: 'base', path }, evalBeforeTraining: false }))()
      if (E.isLeft(next)) throw new Error(next.left.message)
      expect(lines.some((l) => l.startsWith('model: 1 layers, d 16'))).toBe(true)
      expect(lines.some((l) => l.startsWith('building the agent'))).toBe(false)
    }
    const bad = await Pipeline.run({ run: RunDir.create('t', join(root, 'bad-base')), backend, reporter: quiet() })(
      recipe([sft], { model: { kind: 'base', path: join(root, 'nowhere') } })
    )()
    expect(E.isLeft(bad) && bad.left.message).toMatch(/^base model: .*nowhere: no such folder/)
  })
})

describe('PretrainStage.transcripts', () => {
  it('are the same for the same recipe seed and stage, others for another seed', async () => {
    const stage = { kind: 'pretrain' as const, episodes: 12 }
    const a = await PretrainStage.transcripts(recipe([pretrain]), 0, stage)()
    const b = await PretrainStage.transcripts(recipe([pretrain]), 0, stage)()
    const c = await PretrainStage.transcripts(recipe([pretrain], { seed: 3 }), 0, stage)()
    expect(b).toEqual(a)
    expect(E.isRight(a) && E.isRight(c) && a.right[0]!.seed !== c.right[0]!.seed).toBe(true)
  })
})
