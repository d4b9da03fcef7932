import { RunDir } from '@mtrl/experiment'
import { TestBackend } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Pipeline.js'
import * as Recipe from '../src/Recipe.js'

beforeAll(() => TestBackend.use('cpu'))
const root = mkdtempSync(join(tmpdir(), 'mtrl-pipeline-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const env = { kind: 'textworld', settings: 'w1-o1-q1' }
const recipe = (stages: ReadonlyArray<Record<string, unknown>>, extra: Record<string, unknown> = {}): Recipe.Resolved => {
  const decoded = Recipe.decode({
    name: 'pipeline-test',
    seed: 3,
    model: { kind: 'scratch', dModel: 16, layers: 1, heads: 2, maxLen: 192, corpusEpisodes: 10 },
    rollout: { maxNewTokens: 6, systemPrompt: '' },
    stages,
    eval: { episodes: 2, batch: 2 },
    ...extra
  })
  if (E.isLeft(decoded)) throw new Error(decoded.left)
  return decoded.right
}
const sft = { kind: 'sft', env, episodes: 8, epochs: 1, batchSize: 4 }
const rl = { kind: 'rl', env, iterations: 2, algorithm: 'grpo', budget: { seedsPerIteration: 1, groupSize: 2 } }
const quiet = (lines: string[] = []): _.Reporter => ({ line: (text) => void lines.push(text) })
const backend = { name: 'cpu' }

describe('Pipeline', () => {
  it('runs every stage, evaluates before and after each, and writes the run folder', async () => {
    const run = RunDir.create('t', join(root, 'full'))
    const lines: string[] = []
    const result = await _.run({ run, backend, reporter: quiet(lines) })(recipe([sft, rl]))()
    if (E.isLeft(result)) throw new Error(result.left.message)
    expect(result.right.evals.map((e) => e.phase)).toEqual([
      'before training',
      'after stage 1 (sft on textworld/w1-o1-q1)',
      'after stage 2 (rl on textworld/w1-o1-q1)'
    ])
    expect(result.right.backend).toBe(backend)
    const kinds = new Set(run.readMetrics().map((m) => m['kind']))
    expect([...kinds].sort()).toEqual(['eval', 'rl', 'sft', 'sft-epoch'])
    expect(run.readMetrics().filter((m) => m['kind'] === 'rl')).toHaveLength(2)
    for (const file of ['eval.json', 'progress.json', 'report.html', 'checkpoints/stage-0/end', 'checkpoints/stage-1/end'])
      expect(existsSync(run.file(file))).toBe(true)
    expect(lines.some((l) => l.startsWith('model: 1 layers, d 16'))).toBe(true)
    expect(lines.some((l) => l.startsWith('stage 1 (sft on textworld/w1-o1-q1): 8 demonstrations'))).toBe(true)
  })

  it("streams each SFT step to the reporter as it happens, the same records the run folder gets at the stage's end; report: false writes no report.html", async () => {
    const run = RunDir.create('t', join(root, 'live'))
    const live: Array<Readonly<Record<string, unknown>>> = []
    const seen: number[] = []
    const reporter: _.Reporter = {
      line: () => undefined,
      step: (record) => void (live.push(record), seen.push(run.readMetrics().filter((m) => m['kind'] === 'sft').length))
    }
    const result = await _.run({ run, backend, reporter, report: false })(recipe([sft]))()
    if (E.isLeft(result)) throw new Error(result.left.message)
    const recorded = run.readMetrics().filter((m) => m['kind'] === 'sft')
    expect(live.length).toBe(2)
    expect(JSON.parse(JSON.stringify(live))).toEqual(recorded) // as JSON: a NaN is written null
    // live: each step reached the reporter before any step was in the run folder
    expect(seen).toEqual([0, 0])
    expect(existsSync(run.file('report.html'))).toBe(false)
    expect(existsSync(run.file('eval.json'))).toBe(true)
  })

  it('an RL stage whose episodes an agent written as code plays through the policy served over the OpenAI API', async () => {
    const run = RunDir.create('t', join(root, 'agent'))
    const lines: string[] = []
    const agentStage = { ...rl, agent: join(__dirname, 'fixtures', 'textAgent.ts') }
    const result = await _.run({ run, backend, reporter: quiet(lines) })(recipe([agentStage], { evalBeforeTraining: false }))()
    if (E.isLeft(result)) throw new Error(result.left.message)
    expect(lines.some((l) => l.includes('episodes played by the agent') && l.includes('textAgent.ts'))).toBe(true)
    const iterations = run.readMetrics().filter((m) => m['kind'] === 'rl')
    expect(iterations).toHaveLength(2)
    for (const m of iterations) {
      expect(m['episode/turns']).toBeGreaterThan(0)
      expect(Number.isFinite(m['loss/policy'])).toBe(true)
    }
    const bad = await _.run({ run: RunDir.create('t', join(root, 'agent-missing')), backend, reporter: quiet() })(
      recipe([{ ...rl, agent: join(root, 'nope.ts') }], { evalBeforeTraining: false })
    )()
    expect(E.isLeft(bad) && bad.left.message).toMatch(/cannot load the agent module .*nope\.ts/)
  })

  it('skips the evaluation before training when told to, and still evaluates after each stage', async () => {
    const run = RunDir.create('t', join(root, 'no-before'))
    const result = await _.run({ run, backend, reporter: quiet() })(recipe([sft], { evalBeforeTraining: false }))()
    if (E.isLeft(result)) throw new Error(result.left.message)
    expect(result.right.evals.map((e) => e.phase)).toEqual(['after stage 1 (sft on textworld/w1-o1-q1)'])
    expect(
      run
        .readMetrics()
        .filter((m) => m['kind'] === 'eval')
        .map((m) => m['phase'])
    ).toEqual(['after stage 1 (sft on textworld/w1-o1-q1)'])
  })

  it('an RL stage with replicas shares its updates with worker threads and trains as many iterations', async () => {
    const run = RunDir.create('t', join(root, 'replicas'))
    const lines: string[] = []
    const ppo = { kind: 'rl', env, iterations: 2, algorithm: 'ppo', budget: { seedsPerIteration: 3 }, replicas: 2 }
    const result = await _.run({ run, backend, reporter: quiet(lines) })(recipe([ppo]))()
    if (E.isLeft(result)) throw new Error(result.left.message)
    expect(lines.filter((l) => l.includes('2 data-parallel update replicas (workers on cpu)'))).toHaveLength(1)
    const iterations = run.readMetrics().filter((m) => m['kind'] === 'rl')
    expect(iterations).toHaveLength(2)
    // both steps of each minibatch ran: a policy and a critic gradient
    for (const m of iterations) expect(m['grad/policy_norm']).toBeGreaterThan(0)
    expect(iterations[1]!['grad/critic_norm']).toBeGreaterThan(0)
  })

  it('an RL stage with rollout threads plays its episodes on them and trains as a one-thread stage does', async () => {
    const metricsOf = async (dir: string, threads: number, lines: string[] = []) => {
      const run = RunDir.create('t', join(root, dir))
      const result = await _.run({ run, backend, reporter: quiet(lines) })(recipe([{ ...rl, rolloutThreads: threads }], { evalAfterEachStage: false }))()
      if (E.isLeft(result)) throw new Error(result.left.message)
      const timeless = (m: Record<string, unknown>) => Object.fromEntries(Object.entries(m).filter(([k]) => !/^time\/|per_s|_per_second|tokens_per/.test(k)))
      return run
        .readMetrics()
        .filter((m) => m['kind'] === 'rl')
        .map(timeless)
    }
    const lines: string[] = []
    const threaded = await metricsOf('threads-2', 2, lines)
    expect(lines.filter((l) => l.includes('episodes played by 2 threads (workers on cpu)'))).toHaveLength(1)
    expect(threaded).toHaveLength(2)
    expect(threaded).toEqual(await metricsOf('threads-1', 1))
  })

  it('an RL stage that plays ahead (maxStaleness 1) has a worker thread play the next iteration while this one updates', async () => {
    const run = RunDir.create('t', join(root, 'ahead'))
    const lines: string[] = []
    const result = await _.run({ run, backend, reporter: quiet(lines) })(recipe([{ ...rl, iterations: 3, maxStaleness: 1 }], { evalAfterEachStage: false }))()
    if (E.isLeft(result)) throw new Error(result.left.message)
    expect(lines.filter((l) => l.includes('episodes played up to 1 iteration(s) ahead by 1 worker thread(s) (cpu) while this thread updates'))).toHaveLength(1)
    const iterations = run.readMetrics().filter((m) => m['kind'] === 'rl')
    expect(iterations.map((m) => m['rollout/staleness'])).toEqual([0, 1, 1])
    for (const m of iterations) expect(m['grad/policy_norm']).toBeGreaterThan(0)
  })

  it('a PPO stage with a critic warm-up says the policy was not updated in its first iteration, and prints losses after it', async () => {
    const run = RunDir.create('t', join(root, 'warm-up'))
    const lines: string[] = []
    const ppo = { kind: 'rl', env, iterations: 2, algorithm: 'ppo', budget: { seedsPerIteration: 2 }, critic: { warmup: 1 } }
    const result = await _.run({ run, backend, reporter: quiet(lines) })(recipe([ppo], { evalAfterEachStage: false }))()
    if (E.isLeft(result)) throw new Error(result.left.message)
    const iterationLines = lines.filter((l) => / iter \d\/2 /.test(l))
    expect(iterationLines).toHaveLength(2)
    expect(iterationLines[0]).toContain('iter 1/2 ')
    expect(iterationLines[0]).toContain('policy not updated (critic warm-up)')
    expect(iterationLines[1]).toMatch(/iter 2\/2 .*loss\/policy -?\d+\.\d{4} entropy \d+\.\d{3} loss\/value \d/)
    for (const l of iterationLines) expect(l).not.toMatch(/NaN/)
  })

  it("an SFT stage with replay trains on pretraining transcripts mixed into its demonstrations, in the rollout's layout", async () => {
    const run = RunDir.create('t', join(root, 'replay'))
    const lines: string[] = []
    const mixture = [{ kind: 'textworld', rooms: [1, 2], objects: [1, 2], questLength: [1, 2] }]
    const replay = { episodes: 6, mixture, maxTurns: 3 }
    const result = await _.run({ run, backend, reporter: quiet(lines) })(recipe([{ ...sft, replay, heldOutFraction: 0 }], { evalAfterEachStage: false }))()
    if (E.isLeft(result)) throw new Error(result.left.message)
    // a transcript whose prompt and first command do not fit the context is left out, as a pretrain stage leaves it
    const line = lines.find((l) => /: 8 demonstrations and \d replayed pretraining transcripts, \d+ tokens$/.test(l))
    const replayed = Number(/and (\d) replayed/.exec(line ?? '')?.[1])
    expect(replayed, lines.join('\n')).toBeGreaterThan(0)
    expect(replayed).toBeLessThanOrEqual(6)
    // every sample trained on, in batches of 4 (the 8 demonstrations alone: 2 steps)
    expect(run.readMetrics().filter((m) => m['kind'] === 'sft')).toHaveLength(Math.ceil((8 + replayed) / 4))
    const bad = Recipe.decode({ name: 'x', stages: [{ ...sft, replay: { episodes: 0 } }] })
    expect(E.isLeft(bad) && bad.left).toMatch(/stages\.0\.replay\.episodes/)
  })

  it('a critic-free stage (REINFORCE++) prints its policy loss and no value loss, never a NaN', async () => {
    const run = RunDir.create('t', join(root, 'critic-free'))
    const lines: string[] = []
    const stage = { kind: 'rl', env, iterations: 1, algorithm: 'reinforce++', budget: { seedsPerIteration: 2 } }
    const result = await _.run({ run, backend, reporter: quiet(lines) })(recipe([stage], { evalAfterEachStage: false }))()
    if (E.isLeft(result)) throw new Error(result.left.message)
    const [line] = lines.filter((l) => / iter 1\/1 /.test(l))
    expect(line).toMatch(/loss\/policy -?\d+\.\d{4} entropy \d+\.\d{3} \(/)
    expect(line).not.toMatch(/loss\/value|NaN/)
  })

  it('an SFT stage with `until` ends at the first held-out check that wins enough, and logs its checks', async () => {
    const run = RunDir.create('t', join(root, 'until'))
    const lines: string[] = []
    // 8 demonstrations, none held out, batch 4: 2 steps per epoch, 6 in 3 epochs; checks at steps 4 and 6
    const until = { ...sft, epochs: 3, heldOutFraction: 0, until: { success: 0, every: 2, after: 3, episodes: 2 } }
    const result = await _.run({ run, backend, reporter: quiet(lines) })(recipe([until], { evalAfterEachStage: false }))()
    if (E.isLeft(result)) throw new Error(result.left.message)
    const metrics = run.readMetrics()
    expect(metrics.filter((m) => m['kind'] === 'sft').map((m) => m['step'])).toEqual([0, 1, 2, 3])
    expect(metrics.filter((m) => m['kind'] === 'sft-check')).toEqual([{ kind: 'sft-check', stage: 0, step: 4, success: expect.any(Number), episodes: 2 }])
    expect(
      lines.some((l) => /stage 1 \(sft on textworld\/w1-o1-q1\): step 4: .* of 2 held-out games won \(at least 0\.0%: the stage ends here\)/.test(l))
    ).toBe(true)
    // a check that cannot pass (after the last step) leaves the stage whole
    const whole = RunDir.create('t', join(root, 'until-never'))
    const never = { ...until, until: { success: 0, every: 2, after: 7 } }
    const full = await _.run({ run: whole, backend, reporter: quiet() })(recipe([never], { evalAfterEachStage: false }))()
    if (E.isLeft(full)) throw new Error(full.left.message)
    expect(whole.readMetrics().filter((m) => m['kind'] === 'sft')).toHaveLength(6)
    expect(whole.readMetrics().filter((m) => m['kind'] === 'sft-check')).toHaveLength(0)
  })

  it('stops on request after a checkpoint with how to continue, and a resumed run finishes the rest', async () => {
    const run = RunDir.create('t', join(root, 'stopped'))
    const twoStages = recipe([sft, rl], { evalAfterEachStage: false })
    const stopped = await _.run({ run, backend, reporter: quiet(), stop: { requested: () => true } })(twoStages)()
    const message = `stopped during stage 1 (sft on textworld/w1-o1-q1) after step 1 (checkpoint written); continue with: mtrl resume ${run.path}`
    expect(stopped).toEqual(E.left({ _tag: 'Stopped', message }))
    const lines: string[] = []
    const resumed = await _.run({ run, backend, reporter: quiet(lines), resume: true })(twoStages)()
    expect(E.isRight(resumed)).toBe(true)
    expect(lines).toContain('stage 1 (sft on textworld/w1-o1-q1): resuming after step 1')
    expect(run.readMetrics().filter((m) => m['kind'] === 'sft-epoch')).toHaveLength(1)
    expect(run.readMetrics().filter((m) => m['kind'] === 'rl')).toHaveLength(2)
  })

  it("fails with the stage's message when its data cannot be read", async () => {
    const run = RunDir.create('t', join(root, 'failed'))
    const result = await _.run({ run, backend, reporter: quiet() })(
      recipe([{ ...sft, episodes: undefined, data: join(root, 'missing.jsonl') }], { evalAfterEachStage: false })
    )()
    expect(E.isLeft(result) && result.left._tag === 'Failed' && result.left.message).toMatch(/^cannot read .*missing\.jsonl/)
  })
})
