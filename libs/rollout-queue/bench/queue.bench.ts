/**
 * Scale-out throughput on this machine: RL iterations (PPO, the default recipe's model and
 * game) whose episodes are played in-process, by 1 worker process, and by 2 worker processes
 * over a local Redis; and the rollout's generated tokens/s against the sampler's raw KV-cache
 * decode rate on the same slots. Backend from MTRL_BACKEND (default auto: wasm here), the same
 * in the trainer and the workers. Prints the machine's load average before and after: the
 * figures are only worth something on an idle machine.
 *
 *   npm run bench -w @mtrl/rollout-queue
 *   ITERATIONS=4 npm run bench -w @mtrl/rollout-queue
 */
import { Backend } from '@mtrl/backend'
import { Rng } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import { ChatTemplate, Critic, ModelConfig, Policy, Sampler, WordTokenizer } from '@mtrl/policy'
import { Layout, Rollout } from '@mtrl/rollout'
import { Config, Trainer } from '@mtrl/trainer-rl'
import * as E from 'fp-ts/lib/Either.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { QueueError, RedisServer, Runner } from '../src/index.js'

const load = (): string => loadavg().map((x) => x.toFixed(2)).join(' ')
const loadBefore = load()
const name = Backend.fromEnvironment()
if (typeof name !== 'string') throw new Error(Backend.message(name))
const selected = await Backend.select(name)()
if (E.isLeft(selected)) throw new Error(Backend.message(selected.left))
const backend = selected.right.name
console.log(`backend: ${backend} via ${selected.right.via}; load average ${loadBefore}`)

const iterations = Number(process.env['ITERATIONS'] ?? 3)
const settings = Settings.custom(2, 3, 4)
const spec = { textworld: 'w2-o3-q4' }
const seedsPerIteration = 16
const groupSize = 2
const slots = seedsPerIteration * groupSize
const contextLength = 512
const maxTurns = TextWorld.spec(settings).maxTurns
const rollout: Rollout.Options = { ...Rollout.defaultOptions, maxTurns, maxNewTokens: 10, temperature: 0.7, systemPrompt: '' }

// The default recipe's model (d 128, 2 layers, 8 heads, previous-token embedding, canon 3), freshly
// initialised: every action is invalid, every episode runs its whole turn budget (a steady load).
const corpus: string[] = [Layout.system('', 'plain')]
for (let seed = 0; seed < 40; seed++) {
  const start = await TextWorld.make(settings).reset(seed)()
  if (E.isLeft(start)) throw new Error(JSON.stringify(start.left))
  corpus.push(start.right.goal, start.right.text, ...(start.right.info.admissibleActions ?? []))
}
const tokenizer = WordTokenizer.build({ maxVocab: 1024, minCount: 1 })(corpus)
const template = ChatTemplate.make(tokenizer)
const model = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 128, layers: 2, heads: 8, maxLen: contextLength, prevTokenEmbedding: true, canonSpan: 3 })
console.log(`model: ${ModelConfig.parameterCount(model).toLocaleString('en')} parameters; ${slots} episodes per iteration (${seedsPerIteration} seeds x ${groupSize}) on TextWorld w2-o3-q4, <= ${maxTurns} turns x <= 10 new tokens`)

const startRedis = await RedisServer.start()()
if (E.isLeft(startRedis)) throw new Error(QueueError.message(startRedis.left))
const redis = startRedis.right

const spawnWorker = (id: number): Promise<ChildProcess> =>
  new Promise((resolve, reject) => {
    const script = fileURLToPath(new URL('./worker.ts', import.meta.url))
    const child = spawn(process.execPath, ['--conditions=@mtrl/source', '--import', 'tsx', script, redis.url, `bench-${id}`, backend], { stdio: ['ignore', 'pipe', 'inherit'] })
    child.stdout!.on('data', (d: Buffer) => /ready/.test(d.toString()) && resolve(child))
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)))
  })

interface Figures {
  readonly label: string
  readonly episodes: number
  readonly rolloutSeconds: number
  readonly totalSeconds: number
  readonly generatedTokens: number
}

/** PPO iterations (after one warm-up) with episodes played by `play` (undefined: in-process). */
const train = async (label: string, runner: Runner.Runner | undefined): Promise<Figures> => {
  const policy = Policy.make(model, 0, { tokenizer })
  const critic = Critic.make(policy, { shareTrunk: false }, 1)
  const config: Config.Config = { ...Config.defaultConfig, algorithm: 'ppo', seedsPerIteration, groupSize, rollout, seed: 1, policyLr: 5e-5, criticLr: 5e-4, minibatches: 2 }
  const trainer = Trainer.make({
    config,
    policy,
    critic,
    envs: Array.from({ length: slots }, () => TextWorld.make(settings)),
    template,
    tokenizer,
    contextLength,
    ...(runner === undefined ? {} : { play: Runner.asRollout(runner, { env: spec, rollout, policy, contextLength, envName: 'textworld' }) })
  })
  let episodes = 0
  let rolloutSeconds = 0
  let totalSeconds = 0
  let generatedTokens = 0
  for (let i = 0; i <= iterations; i++) {
    const t0 = performance.now()
    const m = await Trainer.iterate(trainer)()
    if (E.isLeft(m)) throw new Error(JSON.stringify(m.left))
    if (i === 0) continue
    totalSeconds += (performance.now() - t0) / 1000
    rolloutSeconds += m.right['time/rollout_s']!
    episodes += slots
    generatedTokens += (m.right['perf/tokens_per_s'] ?? 0) * m.right['time/rollout_s']!
  }
  trainer.dispose()
  critic.dispose()
  policy.dispose()
  return { label, episodes, rolloutSeconds, totalSeconds, generatedTokens }
}

/** The sampler alone on the same slots: first prompts prefilled, then `rollout.maxNewTokens` draws per slot, no stop. */
const rawDecode = async (): Promise<number> => {
  const policy = Policy.make(model, 0, { tokenizer })
  const session = Sampler.make(policy, { slots, maxLen: contextLength })
  const envs = Array.from({ length: slots }, () => TextWorld.make(settings))
  const prompts = await Promise.all(
    envs.map(async (env, i) => {
      const o = await env.reset(i)()
      if (E.isLeft(o)) throw new Error(JSON.stringify(o.left))
      return template.prompt(Layout.system('', 'plain'), Layout.firstUser(o.right.goal, o.right.text))
    })
  )
  let tokens = 0
  let seconds = 0
  const rng = Rng.make(0)
  for (let r = 0; r < 4; r++) {
    prompts.forEach((_, s) => session.reset(s))
    session.append(prompts.map((_, s) => s), prompts)
    const t0 = performance.now()
    const out = session.generate(prompts.map((_, s) => s), { maxNewTokens: rollout.maxNewTokens, temperature: 0.7, stopTokens: [], rng })
    if (r === 0) continue
    seconds += (performance.now() - t0) / 1000
    tokens += out.reduce((n, g) => n + g.tokens.length, 0)
  }
  session.dispose()
  policy.dispose()
  return tokens / seconds
}

const rate = (f: Figures): string =>
  `${f.label.padEnd(26)} rollout ${(f.episodes / f.rolloutSeconds).toFixed(2).padStart(6)} episodes/s, whole iteration ${(f.episodes / f.totalSeconds).toFixed(2).padStart(6)} episodes/s, ` +
  `generated ${(f.generatedTokens / f.rolloutSeconds).toFixed(0).padStart(5)} tok/s (${iterations} iterations, ${f.totalSeconds.toFixed(1)} s)`

const results: Figures[] = []
results.push(await train('in-process (no queue)', undefined))
console.log(rate(results[0]!))
const made = await Runner.make({ url: redis.url })()
if (E.isLeft(made)) throw new Error(QueueError.message(made.left))
const workers: ChildProcess[] = []
try {
  for (const n of [1, 2]) {
    while (workers.length < n) workers.push(await spawnWorker(workers.length + 1))
    results.push(await train(`${n} worker process${n === 1 ? '' : 'es'}`, made.right))
    console.log(rate(results[results.length - 1]!))
  }
} finally {
  await made.right.close()()
  for (const w of workers) w.kill('SIGTERM')
  await redis.stop()
}
const [local, one, two] = results as [Figures, Figures, Figures]
const raw = await rawDecode()
console.log(`\n2 workers / 1 worker: rollout ${((two.episodes / two.rolloutSeconds) / (one.episodes / one.rolloutSeconds)).toFixed(2)}x, whole iteration ${((two.episodes / two.totalSeconds) / (one.episodes / one.totalSeconds)).toFixed(2)}x`)
console.log(`1 worker / in-process: rollout ${((one.episodes / one.rolloutSeconds) / (local.episodes / local.rolloutSeconds)).toFixed(2)}x`)
console.log(`sampler raw KV-cache decode on ${slots} slots: ${raw.toFixed(0)} tok/s; the in-process rollout generates ${(local.generatedTokens / local.rolloutSeconds).toFixed(0)} tok/s = ${((100 * local.generatedTokens) / local.rolloutSeconds / raw).toFixed(0)}% of it`)
console.log(`load average after: ${load()}`)
