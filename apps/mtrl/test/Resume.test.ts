import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { inProcess } from './support/inProcess.js'

const bin = join(__dirname, '..', 'bin', 'mtrl.mjs')
const dir = mkdtempSync(join(tmpdir(), 'mtrl-resume-'))
const env = { kind: 'textworld', settings: 'w1-o2-q2' }
const recipe = {
  name: 'resume-test',
  seed: 3,
  model: { kind: 'scratch', dModel: 32, layers: 1, heads: 2, maxLen: 256, corpusEpisodes: 30 },
  rollout: { maxNewTokens: 6 },
  stages: [
    { kind: 'sft', env, episodes: 16, epochs: 1, batchSize: 8 },
    { kind: 'rl', env, iterations: 6, algorithm: 'ppo', budget: { seedsPerIteration: 4, groupSize: 1 } }
  ],
  eval: { episodes: 4, batch: 4 },
  evalAfterEachStage: false,
  checkpointEvery: 1
}
const recipeFile = join(dir, 'recipe.json')
writeFileSync(recipeFile, JSON.stringify(recipe))

const runSync = (args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, MTRL_BACKEND: 'wasm' }, timeout: 240_000 })

const rlMetrics = (runDir: string): Array<Record<string, unknown>> =>
  readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((m) => m['kind'] === 'rl')

/** Metrics without wall-clock figures, which differ between any two runs. */
const comparable = (m: Record<string, unknown>) => Object.fromEntries(Object.entries(m).filter(([k]) => !k.startsWith('time/') && !k.startsWith('perf/')))

afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** SIGKILLs `child` as soon as `path` exists and waits for it to exit; fails if it ends or stalls first. */
const killOnceExists = async (child: ChildProcess, path: string, what: string, timeoutMs: number): Promise<void> => {
  await new Promise<void>((resolve, reject) => {
    const deadline = Date.now() + timeoutMs
    const poll = setInterval(() => {
      if (existsSync(path)) {
        clearInterval(poll)
        child.kill('SIGKILL')
        resolve()
      } else if (Date.now() > deadline || child.exitCode !== null) {
        clearInterval(poll)
        reject(new Error(`the run ended or stalled before ${what}`))
      }
    }, 20)
  })
  await new Promise((resolve) => child.once('exit', resolve))
}

describe('kill and resume', () => {
  it('a run killed with SIGKILL resumes and ends with the metrics of an uninterrupted run', async () => {
    const straight = join(dir, 'straight')
    const full = runSync(['train', recipeFile, '--run-dir', straight])
    expect(full.status, full.stderr).toBe(0)

    const killed = join(dir, 'killed')
    const child = spawn(process.execPath, [bin, 'train', recipeFile, '--run-dir', killed], { env: { ...process.env, MTRL_BACKEND: 'wasm' }, stdio: 'ignore' })
    // Kill it once the RL stage has written its third iteration checkpoint.
    await killOnceExists(child, join(killed, 'checkpoints', 'stage-1', 'iter-00000003'), 'its third checkpoint', 180_000)
    expect(JSON.parse(readFileSync(join(killed, 'progress.json'), 'utf8')).finished).toBe(false)

    const resumed = runSync(['resume', killed])
    expect(resumed.status, resumed.stderr).toBe(0)
    // it continued after the checkpoint instead of redoing the stage
    const done = Number(/resumed after iteration (\d+)/.exec(resumed.stdout)?.[1])
    expect(done).toBeGreaterThanOrEqual(3)
    expect(resumed.stdout).not.toMatch(/iter 1\/6 /)
    expect(resumed.stdout).not.toMatch(/stage 1 \(sft/)
    expect(JSON.parse(readFileSync(join(killed, 'progress.json'), 'utf8')).finished).toBe(true)

    const a = rlMetrics(straight)
    const b = rlMetrics(killed)
    expect(b.map((m) => m['iteration'])).toEqual([0, 1, 2, 3, 4, 5])
    expect(b.map(comparable)).toEqual(a.map(comparable))
    // the final evaluation agrees too
    const evalOf = (d: string) => JSON.parse(readFileSync(join(d, 'eval.json'), 'utf8')).evals.map((e: { results: unknown }) => e.results)
    expect(evalOf(killed)).toEqual(evalOf(straight))
    // and mtrl eval reproduces the run's success rate (the evaluations in this process: the kill and
    // resume above are the processes under test)
    const wasm = { MTRL_BACKEND: 'wasm' }
    const transcripts = join(killed, 'transcripts.jsonl')
    const again = await inProcess(['eval', '--run', killed, '--json', '--transcripts', transcripts], wasm)
    expect(again.code, again.stderr).toBe(0)
    const result = JSON.parse(again.stdout).results[0]
    expect(result.successRate).toBe(evalOf(straight)[0][0].successRate)
    // so does mtrl eval of the run's last checkpoint: it plays with the run's rollout and evaluation settings
    const checkpoint = join(killed, 'checkpoints', 'stage-1', 'end')
    const ofCheckpoint = await inProcess(['eval', '--checkpoint', checkpoint, 'textworld', '--config', env.settings, '--json'], wasm)
    expect(ofCheckpoint.code, ofCheckpoint.stderr).toBe(0)
    expect(ofCheckpoint.stderr).toContain(`a checkpoint of ${killed}`)
    expect(JSON.parse(ofCheckpoint.stdout).results).toEqual(evalOf(straight)[0])
    // a copy outside the run has no recipe to read its settings from: the defaults are used, and said
    const loose = join(dir, `loose-${Math.random().toString(36).slice(2)}`)
    cpSync(checkpoint, loose, { recursive: true })
    const ofLoose = await inProcess(['eval', '--checkpoint', loose, 'textworld', '--config', env.settings, '--json'], wasm)
    expect(ofLoose.code, ofLoose.stderr).toBe(0)
    expect(ofLoose.stderr).toContain(`${loose}: not inside a run`)
    expect(ofLoose.stderr).toContain('default rollout settings (system prompt "You are an agent in a text environment.")')
    // the transcripts are the same episodes: one line each, as many wins, and the text of every turn
    const episodes = readFileSync(transcripts, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(episodes.length).toBe(result.episodes)
    expect(episodes.filter((e) => e.won).length / episodes.length).toBe(result.successRate)
    for (const e of episodes) {
      expect(e.prompt.length).toBeGreaterThan(0)
      expect(e.turns.length).toBeGreaterThan(0)
      for (const turn of e.turns.slice(0, -1)) expect(turn.observation.length).toBeGreaterThan(0)
    }
    // at a temperature above 0, --seed draws the sample: the same seed the same actions, another seed other actions in the same games
    const sampled = async (seed: number) => {
      const file = join(dir, `sampled-${seed}-${Math.random().toString(36).slice(2)}.jsonl`)
      const r = await inProcess(
        ['eval', '--checkpoint', checkpoint, 'textworld', '--config', env.settings, '--temperature', '1', '--seed', String(seed), '--transcripts', file],
        wasm
      )
      expect(r.code, r.stderr).toBe(0)
      return readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { seed: number; turns: Array<{ action: string }> })
        .map((e) => [e.seed, e.turns.map((t) => t.action)] as const)
    }
    const one = await sampled(1)
    expect(await sampled(1)).toEqual(one)
    const two = await sampled(2)
    expect(two.map(([seed]) => seed)).toEqual(one.map(([seed]) => seed))
    expect(two).not.toEqual(one)
  }, 600_000)

  it('Ctrl-C during a long SFT stage stops within seconds (SFT yields to the event loop), and says how to resume', async () => {
    const long = { ...recipe, name: 'sigint-test', stages: [{ kind: 'sft', env, episodes: 64, epochs: 400, batchSize: 8 }], eval: { episodes: 2, batch: 2 } }
    const longFile = join(dir, 'long.json')
    writeFileSync(longFile, JSON.stringify(long))
    const runDir = join(dir, 'interrupted')
    const child = spawn(process.execPath, [bin, 'train', longFile, '--run-dir', runDir], {
      env: { ...process.env, MTRL_BACKEND: 'wasm' },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    // interrupt once the SFT stage has started (3,200 steps: minutes of work)
    await new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + 60_000
      const poll = setInterval(() => {
        if (/demonstrations, \d+ tokens/.test(out)) {
          clearInterval(poll)
          setTimeout(() => {
            child.kill('SIGINT')
            resolve()
          }, 1500)
        } else if (Date.now() > deadline || child.exitCode !== null) {
          clearInterval(poll)
          reject(new Error(`the SFT stage did not start: ${out}`))
        }
      }, 50)
    })
    const sent = Date.now()
    const code = await exited
    expect(Date.now() - sent).toBeLessThan(15_000)
    expect(code).toBe(130)
    expect(out).toMatch(/stopped during stage 1 \(sft on [^)]*\) after step \d+ \(checkpoint written\)/)
    // the stage's mid-stage checkpoint is on disk, at the step it stopped after; nothing marks the run finished
    const stoppedAt = Number(/after step (\d+)/.exec(out)?.[1])
    expect(JSON.parse(readFileSync(join(runDir, 'checkpoints', 'stage-0', 'sft-latest', 'config.json'), 'utf8')).extra.steps.length).toBe(stoppedAt)
    const progress = join(runDir, 'progress.json')
    if (existsSync(progress)) expect(JSON.parse(readFileSync(progress, 'utf8')).finished).toBe(false)
    expect(out).toMatch(/continue with: mtrl resume/)
  }, 150_000)

  it('an SFT stage killed midway resumes from its last checkpoint and takes the same steps as an uninterrupted run', async () => {
    const sft = {
      ...recipe,
      name: 'sft-kill-test',
      stages: [{ kind: 'sft', env, episodes: 40, epochs: 6, batchSize: 2, emaDecay: 0.9, contextWeight: 0.3, checkpointEvery: 10 }],
      eval: { episodes: 2, batch: 2 }
    }
    const sftFile = join(dir, 'sft.json')
    writeFileSync(sftFile, JSON.stringify(sft))
    const sftMetrics = (runDir: string) =>
      readFileSync(join(runDir, 'metrics.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((m) => m['kind'] === 'sft' || m['kind'] === 'sft-epoch')
    const straight = join(dir, 'sft-straight')
    const full = runSync(['train', sftFile, '--run-dir', straight])
    expect(full.status, full.stderr).toBe(0)
    const killed = join(dir, 'sft-killed')
    const child = spawn(process.execPath, [bin, 'train', sftFile, '--run-dir', killed], { env: { ...process.env, MTRL_BACKEND: 'wasm' }, stdio: 'ignore' })
    await killOnceExists(child, join(killed, 'checkpoints', 'stage-0', 'sft-latest', 'config.json'), 'its first SFT checkpoint', 120_000)
    const resumed = runSync(['resume', killed])
    expect(resumed.status, resumed.stderr).toBe(0)
    const from = Number(/resuming after step (\d+)/.exec(resumed.stdout)?.[1])
    const total = sftMetrics(straight).filter((m) => m['kind'] === 'sft').length
    expect(from).toBeGreaterThanOrEqual(10)
    expect(from).toBeLessThan(total)
    expect(sftMetrics(killed)).toEqual(sftMetrics(straight))
    const evalOf = (d: string) => JSON.parse(readFileSync(join(d, 'eval.json'), 'utf8')).evals.map((e: { results: unknown }) => e.results)
    expect(evalOf(killed)).toEqual(evalOf(straight))
    // the mid-stage checkpoint is gone once the stage's end is saved
    expect(existsSync(join(killed, 'checkpoints', 'stage-0', 'sft-latest'))).toBe(false)
  }, 300_000)
})
