import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Generator } from '@mtrl/env-textworld'
import { afterAll, describe, expect, it } from 'vitest'
import { inProcess } from './support/inProcess.js'

const bin = join(__dirname, '..', 'bin', 'mtrl.mjs')
const mtrl = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}) => {
  const result = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** What `mtrl info --json` reports of the accelerators (the machine's: one spawn serves the tests that read them). */
type Accelerators = Record<string, { installed: boolean }>
let accelerators: Accelerators | undefined
const acceleratorsOf = (): Accelerators =>
  (accelerators ??= (JSON.parse(mtrl(['info', '--backend', 'cpu', '--json']).stdout) as { accelerators: Accelerators }).accelerators)

const scratch = mkdtempSync(join(tmpdir(), 'mtrl-cli-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('mtrl CLI', () => {
  it('prints help listing the commands', () => {
    const { code, stdout } = mtrl(['--help'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/Commands:/)
    expect(stdout).toMatch(/info/)
  })

  it('rejects an unknown command with exit code 2', () => {
    const { code, stderr } = mtrl(['fly'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/unknown command "fly"\n/)
    expect(mtrl(['trian']).stderr.split('\n')[0]).toBe('mtrl: unknown command "trian" (did you mean "train"?)')
  })

  it('rejects an unknown flag, naming it', () => {
    const { code, stderr } = mtrl(['info', '--bakend', 'cpu'])
    expect(code).toBe(2)
    expect(stderr.split('\n')[0]).toBe("mtrl info: Unknown option '--bakend' (did you mean --backend?)")
  })

  it('a registered environment (MTRL_ENV_MODULES: @mtrl/testing GuessEnv, one file) is a name of play with its flags, no edit here', () => {
    const toy = { MTRL_ENV_MODULES: join(__dirname, '..', '..', '..', 'libs', 'testing', 'src', 'GuessEnv.ts') }
    expect(mtrl(['play', '--help'], toy).stdout).toMatch(/ENV is textworld, cooking, alfworld, swe or guess\.[^]*\n {2}guess {7}--high 16\n/)
    // seed 0's secret is 2 (GuessEnv.test.ts in @mtrl/recipe works it out by hand): halving 1..16
    const played = mtrl(['play', 'guess', '--high', '16', '--seed', '0', '--expert'], toy)
    expect(played.code).toBe(0)
    expect(played.stdout).toMatch(/expert plan \(3 steps\): 8 ; 4 ; 2\n[^]*\*\*\* You won! \*\*\*/)
  })

  it('results lists the test-seed ledger MTRL_LEDGER names (never the committed one in tests; a bad line: Ledger.test.ts)', async () => {
    expect(process.env['MTRL_LEDGER']).toMatch(/tmp[/\\]test-looks[/\\]/)
    const ledger = join(scratch, 'looks.jsonl')
    const look = {
      date: '2026-12-06T04:00:00.000Z',
      commit: '4ca34bd0000000000000000000000000000000000',
      recipe: 'default',
      recipeHash: '0123456789abcdef',
      seed: 1,
      run: 'runs/default-1',
      phase: 'after stage 2 (rl on textworld/w2-o3-q4)',
      checkpoint: 'fedcba9876543210',
      env: 'textworld/w2-o3-q4',
      firstSeed: 4_000_000_000,
      episodes: 100,
      temperature: 0,
      samplingSeed: 1001,
      backend: 'wasm',
      successRate: 0.97,
      via: 'run'
    }
    writeFileSync(ledger, `${JSON.stringify(look)}\n${JSON.stringify({ ...look, recipe: 'other' })}\n`)
    const listed = await inProcess(['results', '--recipe', 'default'], { MTRL_LEDGER: ledger })
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout.trim().split('\n')).toHaveLength(2)
    expect(listed.stdout).toMatch(/2026-12-06 04:00 {2}4ca34bd {2}default \(01234567\)/)
    expect(listed.stdout).toContain('97.0%')
  })

  it('info works on the cpu backend, and prints the SWE sandbox host budget (here as MTRL_SWE_HOST_* set it)', () => {
    const custom = { MTRL_SWE_HOST_RUNS: '3', MTRL_SWE_HOST_MEMORY_MB: '2048', MTRL_SWE_HOST_DIR: '/tmp/mtrl-swe-host-info' }
    const { code, stdout } = mtrl(['info', '--backend', 'cpu', '--json'], custom)
    expect(code).toBe(0)
    const report = JSON.parse(stdout)
    expect(report.backend.name).toBe('cpu')
    expect(report.tfjs).toBe('4.22.0')
    expect(Object.keys(report.accelerators)).toContain('@tensorflow/tfjs-node')
    expect(report.sweHostBudget).toEqual({ dir: '/tmp/mtrl-swe-host-info', runs: 3, memoryMb: 2048 })
    accelerators ??= report.accelerators
  })

  it('info says how to set up the faster tensorflow backend exactly when it is missing', () => {
    const { code, stdout } = mtrl(['info', '--backend', 'wasm'])
    expect(code).toBe(0)
    const probe = acceleratorsOf()
    const missing = !probe['@tensorflow/tfjs-node']!.installed && !probe['@tensorflow/tfjs-node-gpu']!.installed
    expect(stdout.includes('npm run setup:tensorflow')).toBe(missing)
  })

  it('info with the automatic choice probes the accelerators without failing', () => {
    const { code, stdout, stderr } = mtrl(['info', '--json'], { MTRL_BACKEND: 'auto' })
    expect(stderr).not.toMatch(/not found in registry/)
    expect(code).toBe(0)
    expect(['tensorflow', 'wasm', 'cpu']).toContain(JSON.parse(stdout).backend.name)
  })

  it('honours MTRL_BACKEND', () => {
    const { code, stdout } = mtrl(['info', '--json'], { MTRL_BACKEND: 'wasm' })
    expect(code).toBe(0)
    expect(JSON.parse(stdout).backend.name).toBe('wasm')
  })

  it('a forced backend that is not installed is a clear error, not a fallback', () => {
    const probe = acceleratorsOf()
    const hasTensorflow = probe['@tensorflow/tfjs-node']!.installed || probe['@tensorflow/tfjs-node-gpu']!.installed
    const { code, stderr } = mtrl(['info', '--backend', 'tensorflow'])
    if (hasTensorflow) {
      expect(code).toBe(0)
    } else {
      expect(code).toBe(3)
      expect(stderr).toMatch(/backend "tensorflow" is not available/)
    }
  })

  it('rejects an unknown backend name', () => {
    const { code, stderr } = mtrl(['info', '--backend', 'gpu'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/unknown backend "gpu"/)
  })

  it('runs a smoke training step on wasm and the loss goes down', async () => {
    // wasm by name: a machine with the tensorflow binding built would pick tensorflow by default
    const { code, stdout } = await inProcess(['smoke', '--steps', '10', '--backend', 'wasm'])
    expect(code).toBe(0)
    expect(stdout).toMatch(/on wasm/)
  })

  it('logprobs reads a family of Families (a sharded OLMo 2) and prints what transformers computes', async () => {
    // every family's numbers through Logprobs: libs/policy/test/Families.test.ts
    for (const name of ['tiny-olmo2']) {
      const dir = join(__dirname, '..', '..', '..', 'fixtures', 'hf', name)
      const reference = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as {
        cases: ReadonlyArray<{ text: string; ids: number[]; next_token_logprobs: number[] }>
        greedy_from_case0: number[]
      }
      const c = reference.cases[0]!
      const { code, stdout, stderr } = await inProcess(['logprobs', '--model', dir, '--text', c.text])
      expect(code, stderr).toBe(0)
      const out = JSON.parse(stdout) as { ids: number[]; nextTokenLogprobs: number[]; greedy: number[] }
      expect(out.ids).toEqual(c.ids)
      out.nextTokenLogprobs.forEach((lp, i) => expect(Math.abs(lp - c.next_token_logprobs[i]!)).toBeLessThan(1e-4))
      expect(out.greedy).toEqual(reference.greedy_from_case0)
    }
  })

  it('eval honours --episodes with --split (a Hugging Face folder on held-out validation seeds)', async () => {
    const model = join(__dirname, '..', '..', '..', 'fixtures', 'hf', 'tiny-qwen2')
    const { code, stdout } = await inProcess([
      'eval',
      '--checkpoint',
      model,
      '--hf',
      'textworld',
      '--config',
      'w1-o1-q1',
      '--episodes',
      '2',
      '--split',
      'validation',
      '--json',
      '--backend',
      'cpu'
    ])
    expect(code).toBe(0)
    expect(JSON.parse(stdout).results.map((r: { episodes: number; seeds: unknown }) => [r.episodes, r.seeds])).toEqual([
      [2, { split: 'validation', first: 3_500_000_000, count: 2 }]
    ])
  })

  it('failures replays eval transcripts against their games and counts the lost games by first mistake', async () => {
    const line = (seed: number, actions: ReadonlyArray<string>, won: boolean) =>
      JSON.stringify({
        env: 'textworld/w2-o3-q4',
        seed,
        won,
        truncated: !won,
        prompt: '',
        turns: actions.map((action) => ({ action, valid: true, reward: 0, observation: '' }))
      })
    const game = (seed: number) => Generator.generateOrThrow({ rooms: 2, objects: 3, questLength: 4, seed })
    const w = (seed: number) => game(seed).quest.walkthrough
    const file = join(scratch, 'transcripts.jsonl')
    writeFileSync(
      file,
      [
        line(1, w(1), true),
        line(2, ['look', ...w(2)], true), // won after a detour
        line(3, [w(3)[0]!, 'take zorkmid', 'take zorkmid'], false), // unknown name at turn 1
        line(4, ['look', 'look'], false), // detour at turn 0
        line(5, ['dance'], false) // unparsed at turn 0
      ].join('\n') + '\n'
    )
    const { code, stdout, stderr } = await inProcess(['failures', file, '--json'])
    expect(code, stderr).toBe(0)
    const [t] = JSON.parse(stdout)
    expect(t).toMatchObject({ env: 'textworld/w2-o3-q4', episodes: 5, won: 2, lost: 3, recovered: 1, disagreements: 0 })
    expect(t.firstMistakes).toEqual({ 'unknown-name': 1, unparsed: 1, elsewhere: 0, 'not-ready': 0, 'no-exit': 0, detour: 1 })
    expect(t.meanMistakeTurn).toBeCloseTo(1 / 3, 10)
    // a transcript whose recorded outcome the replay contradicts is flagged
    writeFileSync(file, `${line(1, ['look'], true)}\n`)
    expect((await inProcess(['failures', file])).stdout).toMatch(/warning: 1 episodes end otherwise when replayed/)
    // a bad line is a usage error naming the file, the line and the field
    writeFileSync(file, `${line(1, w(1), true)}\n{"env":"textworld/w2-o3-q4","seed":"x"}\n`)
    const bad = await inProcess(['failures', file])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/transcripts\.jsonl:2/)
    expect(bad.stderr).toMatch(/seed: expected number/)
    writeFileSync(file, `${JSON.stringify({ env: 'alfworld/pick', seed: 1, won: false, truncated: false, prompt: '', turns: [] })}\n`)
    expect((await inProcess(['failures', file])).stderr).toMatch(/TextWorld transcripts only/)
  })

  it('ablate --resume without --out is a usage error (which ablation to continue), before anything runs', async () => {
    const recipe = join(__dirname, '..', '..', '..', 'recipes', 'paper', 'rl-lift.json')
    const { code, stdout, stderr } = await inProcess(['ablate', recipe, '--resume', '--backend', 'cpu'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/--resume: which ablation\? give its folder with --out DIR/)
    expect(stdout).not.toMatch(/=== cell/)
  })

  it('probe scores the shipped base at the states where the expert unlocks, as JSON; without --verb it is a usage error', async () => {
    const base = join(__dirname, '..', '..', '..', 'models', 'base')
    const args = ['probe', '--checkpoint', base, '--system-prompt', '', 'textworld', '--config', 'w4-o6-q8', '--episodes', '4', '--backend', 'cpu']
    const { code, stdout, stderr } = await inProcess([...args, '--verb', 'unlock', '--json'])
    expect(code, stderr).toBe(0)
    const [{ checkpoint, result }] = JSON.parse(stdout) as [
      { checkpoint: string; result: { verb: string; games: number; states: number; first: number; command: number } }
    ]
    expect(checkpoint).toBe(base)
    expect(result).toMatchObject({ verb: 'unlock', games: 4 })
    expect(result.states).toBeGreaterThan(0)
    expect(result.first).toBeGreaterThan(0)
    expect(result.command).toBeLessThanOrEqual(result.first)
    const missing = await inProcess(args)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/--checkpoint DIR and --verb VERB are required/)
  })

  it('eval --seed with --base-url is a usage error (a served model samples on its server), before any request', async () => {
    const { code, stderr } = await inProcess(['eval', '--base-url', 'http://127.0.0.1:9', '--model', 'm', 'textworld', '--config', 'w1-o1-q1', '--seed', '2'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/--seed sets the sampling seed of a local model/)
  })

  it("sft --seed N trains with that training seed (recorded in the run's recipe.json) instead of the recipe's", async () => {
    const recipe = {
      name: 'seed-flag',
      seed: 3,
      model: { kind: 'scratch', dModel: 16, layers: 1, heads: 2, maxLen: 256, corpusEpisodes: 4 },
      stages: [{ kind: 'sft', env: { kind: 'textworld', settings: 'w1-o1-q1' }, episodes: 4, epochs: 1, batchSize: 4 }],
      evalAfterEachStage: false,
      eval: { episodes: 1, batch: 1 }
    }
    const file = join(scratch, 'seed-flag.json')
    writeFileSync(file, JSON.stringify(recipe))
    const sft = async (dir: string, extra: ReadonlyArray<string>) => {
      const { code, stderr } = await inProcess(['sft', file, '--run-dir', join(scratch, dir), '--backend', 'cpu', ...extra])
      expect(code, stderr).toBe(0)
      const losses = readFileSync(join(scratch, dir, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((m) => m['kind'] === 'sft')
        .map((m) => m['loss/sft'])
      return { seed: (JSON.parse(readFileSync(join(scratch, dir, 'recipe.json'), 'utf8')) as { seed: number }).seed, losses }
    }
    const own = await sft('own', [])
    const nine = await sft('nine', ['--seed', '9'])
    expect([own.seed, nine.seed]).toEqual([3, 9])
    expect(nine.losses.length).toBe(own.losses.length)
    expect(nine.losses).not.toEqual(own.losses)
    expect((await sft('own-again', ['--seed', '3'])).losses).toEqual(own.losses)
    const bad = await inProcess(['sft', file, '--seed', '1.5'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--seed: expected a non-negative integer/)
  })
})
