/**
 * mtrl at the real sizes of published models, beside PyTorch + PEFT (and TRL's GRPOTrainer) on
 * the same folder, CPU and threads (issue 57): a folder with the configuration of Qwen3-0.6B or
 * Qwen2.5-1.5B and random weights (written by tools/fixtures/real-size.py when absent; nothing
 * is downloaded), LoRA rank 16 on the attention and MLP projections. Prints SFT tokens/s,
 * sampling tokens/s at batch 1 and 16, the seconds of one GRPO iteration, a multi-turn episode
 * served through `mtrl serve-policy`, peak resident memory, and the ratios.
 *
 * Each side runs in its own process, one at a time, watched: a process past --limit GiB
 * resident (default 16), or a machine with less than 1.5 GiB available, is stopped and reported.
 *
 *   npm run bench:real-size                                  # qwen3-0.6b, reduced counts
 *   npm run bench:real-size -- --shape qwen2.5-1.5b --skip rl
 *   npm run bench:real-size -- --full                        # the issue's counts (16 episodes, ...)
 *   npm run bench:real-size -- --only mtrl --dir /tmp/q3     # one side, a given folder
 *   npm run bench:real-size -- --batch 1 --seq 128 --skip rl  # a smaller SFT batch, no RL
 *   npm run bench:real-size -- --only mtrl --weights copy     # sampling from the folded copy of the weights
 *   npm run bench:real-size -- --only mtrl --recompute        # SFT and the GRPO update with gradient checkpointing
 *
 * Reduced (default): SFT 2 x 256 tokens, 1 timed step after a warm-up; sampling 64-token
 * prompts, 32 new tokens; GRPO 4 episodes (one group) x 4 turns of 32 tokens. --full: SFT 4 x 512, 3 steps;
 * GRPO 16 episodes x 4 turns.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import type { Shape } from './realSize.mtrl.js'
import { serveEpisode } from './realSizeServe.js'

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, '..', '..', '..')
const { values } = parseArgs({
  options: {
    shape: { type: 'string', default: 'qwen3-0.6b' },
    dir: { type: 'string' },
    full: { type: 'boolean', default: false },
    only: { type: 'string' },
    skip: { type: 'string', multiple: true, default: [] },
    limit: { type: 'string', default: '16' },
    batch: { type: 'string' },
    seq: { type: 'string' },
    episodes: { type: 'string' },
    threads: { type: 'string', default: String(Math.min(2, cpus().length)) },
    weights: { type: 'string' },
    recompute: { type: 'boolean', default: false }
  }
})
const shapeName = values.shape!
// a relative --dir is the caller's (npm runs this in apps/mtrl)
const dir = values.dir === undefined ? join('/tmp/mtrl-real-size', shapeName) : resolve(process.env['INIT_CWD'] ?? process.cwd(), values.dir)
const limitGiB = Number(values.limit)
const threads = Number(values.threads)
const skip = new Set(values.skip)
const phases = (['sft', 'sample', 'rl'] as const).filter((p) => !skip.has(p))
const shape: Shape = {
  phases,
  batch: Number(values.batch ?? (values.full ? 4 : 2)),
  seq: Number(values.seq ?? (values.full ? 512 : 256)),
  sftSteps: values.full ? 3 : 1,
  prompt: 300,
  samplePrompt: values.full ? 300 : 64,
  newTokens: 32,
  episodes: Number(values.episodes ?? (values.full ? 16 : 4)),
  turns: 4,
  microBatchTokens: 512,
  ...(values.weights === 'copy' || values.weights === 'shared' ? { weights: values.weights } : {}),
  ...(values.recompute === true ? { recompute: true } : {})
}
if (values.weights !== undefined && shape.weights === undefined) throw new Error(`--weights must be copy or shared, got ${values.weights}`)
const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')
const available = (): number => Number(/MemAvailable:\s+(\d+)/.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) / 2 ** 20
const rssOf = (pid: number): number => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 2 ** 20
  } catch {
    return 0
  }
}

type Results = Record<string, Record<string, number | string>>

/** Runs a side's process, collects its JSON lines under `key`, stops it past the memory limit. */
const runSide = (
  key: string,
  command: string,
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv
): Promise<{ results: Results; peak: number; stopped?: string }> =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] })
    const results: Results = {}
    let peak = 0
    let stopped: string | undefined
    let buffer = ''
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      const lines = buffer.split('\n')
      buffer = lines.pop()!
      for (const line of lines) {
        if (!line.startsWith(`{"${key}"`)) continue
        const r = (JSON.parse(line) as Record<string, Record<string, number | string>>)[key]
        if (r !== undefined) results[String(r['phase'])] = r
      }
    })
    const watch = setInterval(() => {
      const rss = rssOf(child.pid!)
      peak = Math.max(peak, rss)
      const why =
        rss > limitGiB
          ? `resident ${rss.toFixed(1)} GiB > ${limitGiB} GiB`
          : available() < 1.5
            ? `machine has ${available().toFixed(1)} GiB available`
            : undefined
      if (why !== undefined && stopped === undefined) {
        stopped = why
        child.kill('SIGKILL')
      }
    }, 200)
    child.on('exit', () => {
      clearInterval(watch)
      resolve({ results, peak, ...(stopped === undefined ? {} : { stopped }) })
    })
  })

if (!existsSync(join(dir, 'config.json'))) {
  process.stdout.write(`writing ${shapeName} to ${dir} (random weights) ...\n`)
  await new Promise<void>((resolve, reject) =>
    spawn('python3', [join(root, 'tools/fixtures/real-size.py'), shapeName, dir], { stdio: 'inherit' }).on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`real-size.py exited ${code}`))
    )
  )
}

const loadBefore = load()
const env = { ...process.env, OMP_NUM_THREADS: String(threads), MTRL_BACKEND: process.env['MTRL_BACKEND'] ?? 'tensorflow' }
const sides: Array<{ name: string; key: string; run: () => ReturnType<typeof runSide> }> = [
  {
    name: `mtrl (${env.MTRL_BACKEND})`,
    key: 'mtrl',
    run: () =>
      runSide('mtrl', process.execPath, ['--conditions=@mtrl/source', '--import', 'tsx', join(here, 'realSize.mtrl.ts'), dir, JSON.stringify(shape)], env)
  },
  {
    name: 'PyTorch + PEFT',
    key: 'torch',
    run: () => runSide('torch', 'python3', [join(here, 'real_size.py'), dir, JSON.stringify(shape), String(threads)], env)
  }
]
const ran: Record<string, Awaited<ReturnType<typeof runSide>>> = {}
for (const side of sides) {
  if (values.only !== undefined && values.only !== side.key) continue
  process.stdout.write(`--- ${side.name} (free ${available().toFixed(1)} GiB, load ${load()})\n`)
  ran[side.key] = await side.run()
  if (ran[side.key]!.stopped !== undefined) process.stdout.write(`${side.name} STOPPED: ${ran[side.key]!.stopped}\n`)
}
const serve = skip.has('serve') || values.only === 'torch' ? undefined : await serveEpisode(root, dir, shape, env, limitGiB)

const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, number>
const num = (side: string, phase: string, field: string): number | undefined => {
  const v = ran[side]?.results[phase]?.[field]
  return typeof v === 'number' ? v : undefined
}
const rows: Array<[string, string, string, boolean]> = [
  ['load (s)', 'load', 'seconds', false],
  [`SFT tokens/s (${shape.batch} x ${shape.seq})`, 'sft', 'tokensPerSecond', true],
  [`sampling tokens/s, batch 1 (${shape.samplePrompt}-token prompt, ${shape.newTokens} new)`, 'sample1', 'tokensPerSecond', true],
  ['  prefill of the prompt (s)', 'sample1', 'prefillSeconds', false],
  ['sampling tokens/s, batch 16', 'sample16', 'tokensPerSecond', true],
  ['  prefill of 16 prompts (s)', 'sample16', 'prefillSeconds', false],
  [`GRPO iteration (s; ${shape.episodes} episodes x ${shape.turns} turns x ${shape.newTokens} tokens)`, 'rl', 'seconds', false],
  ['SFT tokens per CPU second (all threads: steadier on a busy machine)', 'sft', 'tokensPerCpuSecond', true],
  ['sampling tokens per CPU second, batch 1', 'sample1', 'tokensPerCpuSecond', true],
  ['sampling tokens per CPU second, batch 16', 'sample16', 'tokensPerCpuSecond', true],
  ['GRPO iteration, CPU seconds', 'rl', 'cpuSeconds', false]
]
const fmt = (x: number | undefined): string => (x === undefined ? '-' : x >= 100 ? x.toFixed(0) : x.toFixed(2))
const line = (label: string, a: string, b: string, c: string): string => `${label.padEnd(72)} ${a.padStart(10)} ${b.padStart(10)} ${c.padStart(8)}\n`
process.stdout.write(
  `\n${shapeName}: hidden ${config['hidden_size']}, ${config['num_hidden_layers']} layers, vocab ${config['vocab_size']}; LoRA rank 16 on q/k/v/o/gate/up/down; ${threads} threads; ${values.full ? 'full counts' : 'REDUCED counts (--full for the issue shape)'}\n`
)
process.stdout.write(`load average before ${loadBefore}, after ${load()}\n`)
process.stdout.write(line('', 'mtrl', 'PyTorch', 'ratio'))
for (const [label, phase, field, higherIsBetter] of rows) {
  const a = num('mtrl', phase, field)
  const b = num('torch', phase, field)
  const ratio = a === undefined || b === undefined ? '-' : `${(higherIsBetter ? a / b : b / a).toFixed(2)}x`
  process.stdout.write(line(label, fmt(a), fmt(b), ratio))
}
const peak = (k: string): number | undefined => (ran[k] === undefined ? undefined : Math.max(ran[k]!.peak, num(k, 'rl', 'peakGiB') ?? 0))
process.stdout.write(
  line(
    'peak resident memory (GiB)',
    fmt(peak('mtrl')),
    fmt(peak('torch')),
    peak('mtrl') && peak('torch') ? `${(peak('torch')! / peak('mtrl')!).toFixed(2)}x` : '-'
  )
)
process.stdout.write('(ratio: mtrl over PyTorch for speeds, PyTorch over mtrl for seconds and memory: above 1 is mtrl better)\n')
if (serve !== undefined)
  process.stdout.write(
    `serve-policy episode: ${serve.turns} turns (prompts of ${serve.promptTokens.join(' / ')} tokens, ${shape.newTokens} tokens a reply): ${serve.seconds.map((s) => s.toFixed(1)).join(' / ')} s, server peak resident ${serve.peak.toFixed(2)} GiB${serve.stopped === undefined ? '' : `; STOPPED: ${serve.stopped}`}\n`
  )
