/**
 * Scale-out throughput on this machine. Episodes of an RL iteration (the default recipe's model
 * and game, freshly initialised) played three ways, interleaved round by round so that the
 * machine's load weighs on each alike: in-process (`Rollout.run`), by 1 worker process (the
 * iteration as one job), by 2 worker processes (two jobs); then the rollout's generated tokens/s
 * against the sampler's raw KV-cache decode rate on the same slots. With WHOLE=1 also whole PPO
 * iterations (rollout + update in the trainer) with 1 and 2 workers. Backend from MTRL_BACKEND
 * (default auto: wasm here), the same in the trainer and the workers. Prints the load average
 * before and after: the figures mean something only on an otherwise idle machine.
 *
 *   npm run bench -w @mtrl/rollout-queue
 *   ROUNDS=5 WHOLE=1 npm run bench -w @mtrl/rollout-queue
 *   SEEDS=32 npm run bench -w @mtrl/rollout-queue     (64 episodes per iteration, as recipes/paper/rl-lift.json)
 */
import { Rng } from '@mtrl/core'
import { TextWorld } from '@mtrl/env-textworld'
import { Critic, ModelConfig, Policy, Sampler } from '@mtrl/policy'
import { Layout, Rollout } from '@mtrl/rollout'
import { Config, Trainer } from '@mtrl/trainer-rl'
import * as E from 'fp-ts/lib/Either.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { QueueError, RedisServer, Runner } from '../src/index.js'
import * as Setup from './benchSetup.js'

const loadBefore = Setup.load()
const selected = await Setup.selectBackend()
const backend = selected.name
console.log(`backend: ${backend} via ${selected.via}; load average ${loadBefore}`)

const rounds = Number(process.env['ROUNDS'] ?? 3)
const iterations = Number(process.env['ITERATIONS'] ?? 2)
const { settings } = Setup
const spec = { textworld: 'w2-o3-q4' }
const seedsPerIteration = Number(process.env['SEEDS'] ?? 16)
const groupSize = 2
const slots = seedsPerIteration * groupSize
const contextLength = 512
const maxTurns = TextWorld.spec(settings).maxTurns
const rollout: Rollout.Options = { ...Rollout.defaultOptions, maxTurns, maxNewTokens: 10, temperature: 0.7, systemPrompt: '' }

// The default recipe's model (d 128, 2 layers, 8 heads, previous-token embedding, canon 3), freshly
// initialised: every action is invalid, every episode runs its whole turn budget (a steady load).
const { tokenizer, template, model } = await Setup.build(contextLength)
console.log(
  `model: ${ModelConfig.parameterCount(model).toLocaleString('en')} parameters; ${slots} episodes per iteration (${seedsPerIteration} seeds x ${groupSize}) on TextWorld w2-o3-q4, <= ${maxTurns} turns x <= 10 new tokens`
)

const startRedis = await RedisServer.start()()
if (E.isLeft(startRedis)) throw new Error(QueueError.message(startRedis.left))
const redis = startRedis.right

const spawnWorker = (id: number): Promise<ChildProcess> =>
  new Promise((resolve, reject) => {
    const script = fileURLToPath(new URL('./worker.ts', import.meta.url))
    const child = spawn(
      process.execPath,
      [
        ...(process.env['WORKER_FLAGS'] ?? '').split(' ').filter((f) => f !== ''),
        '--conditions=@mtrl/source',
        '--import',
        'tsx',
        script,
        redis.url,
        `bench-${id}`,
        backend
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] }
    )
    child.stdout!.on('data', (d: Buffer) => /ready/.test(d.toString()) && resolve(child))
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)))
  })

interface Figures {
  readonly label: string
  episodes: number
  rolloutSeconds: number
  totalSeconds: number
  generatedTokens: number
  contextTokens: number
}

const figures = (label: string): Figures => ({ label, episodes: 0, rolloutSeconds: 0, totalSeconds: 0, generatedTokens: 0, contextTokens: 0 })

/** PPO iterations (after one warm-up) with episodes played by `runner` (undefined: in-process). */
const train = async (f: Figures, runner: Runner.Runner | undefined): Promise<void> => {
  const policy = Policy.make(model, 0, { tokenizer })
  const critic = Critic.make(policy, { shareTrunk: false }, 1)
  const config: Config.Config = Config.make({
    algorithm: 'ppo',
    budget: { seedsPerIteration, groupSize },
    rollout,
    seed: 1,
    policy: { lr: 5e-5 },
    critic: { lr: 5e-4 },
    update: { minibatches: 2 }
  })
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
  for (let i = 0; i <= iterations; i++) {
    const t0 = performance.now()
    const m = await Trainer.iterate(trainer)()
    if (E.isLeft(m)) throw new Error(JSON.stringify(m.left))
    if (i === 0) continue
    f.totalSeconds += (performance.now() - t0) / 1000
    f.rolloutSeconds += m.right['time/rollout_s']!
    f.episodes += slots
    f.generatedTokens += (m.right['perf/tokens_per_s'] ?? 0) * m.right['time/rollout_s']!
  }
  trainer.dispose()
  critic.dispose()
  policy.dispose()
}

const policy = Policy.make(model, 0, { tokenizer })
const session = Sampler.make(policy, { slots, maxLen: contextLength })
const localEnvs = Array.from({ length: slots }, () => TextWorld.make(settings))
const seedsOf = (round: number): number[] => Array.from({ length: seedsPerIteration }, (_, i) => 1000 * round + i)

/** One iteration's episodes in-process. */
const playLocal = async (f: Figures, round: number): Promise<void> => {
  const result = await Rollout.run(rollout)({ session, template, tokenizer, contextLength })({
    envs: localEnvs,
    seeds: seedsOf(round),
    groupSize,
    rng: Rng.make(round)
  })()
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left))
  f.episodes += result.right.episodes.length
  f.rolloutSeconds += result.right.metrics.seconds
  f.generatedTokens += result.right.metrics.generatedTokens
  f.contextTokens += result.right.metrics.contextTokens
}

/** One iteration's episodes over the queue, in `jobs` jobs. */
const playQueued =
  (runner: Runner.Runner, jobs: number) =>
  async (f: Figures, round: number): Promise<void> => {
    const result = await runner.run({ env: spec, rollout, policy, contextLength })({ seeds: seedsOf(round), groupSize, rng: Rng.make(round) })()
    if (E.isLeft(result)) throw new Error(QueueError.message(result.left))
    if (result.right.jobs.length !== jobs) throw new Error(`expected ${jobs} jobs, got ${result.right.jobs.length}`)
    f.episodes += result.right.episodes.length
    f.rolloutSeconds += result.right.metrics.seconds
    f.generatedTokens += result.right.metrics.generatedTokens
    f.contextTokens += result.right.metrics.contextTokens
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
    session.append(
      prompts.map((_, s) => s),
      prompts
    )
    const t0 = performance.now()
    const out = session.generate(
      prompts.map((_, s) => s),
      { maxNewTokens: rollout.maxNewTokens, temperature: 0.7, stopTokens: [], rng }
    )
    if (r === 0) continue
    seconds += (performance.now() - t0) / 1000
    tokens += out.reduce((n, g) => n + g.tokens.length, 0)
  }
  session.dispose()
  policy.dispose()
  return tokens / seconds
}

const rate = (f: Figures): string =>
  `${f.label.padEnd(24)} ${(f.episodes / f.rolloutSeconds).toFixed(2).padStart(6)} episodes/s, ${(f.generatedTokens / f.rolloutSeconds).toFixed(0).padStart(5)} generated tok/s (${f.episodes} episodes, ${f.rolloutSeconds.toFixed(1)} s)`

const workers: ChildProcess[] = []
const one = await Runner.make({ url: redis.url, groupsPerJob: seedsPerIteration })()
const two = await Runner.make({ url: redis.url, groupsPerJob: seedsPerIteration / 2 })()
if (E.isLeft(one) || E.isLeft(two)) throw new Error('no runner')
try {
  while (workers.length < 2) workers.push(await spawnWorker(workers.length + 1))
  const local = figures('in-process (no queue)')
  const single = figures('1 worker process')
  const double = figures('2 worker processes')
  const modes: ReadonlyArray<readonly [Figures, (f: Figures, round: number) => Promise<void>]> = [
    [local, playLocal],
    [single, playQueued(one.right, 1)],
    [double, playQueued(two.right, 2)]
  ]
  for (const [, play] of modes) await play(figures('warm-up'), 0)
  for (let round = 1; round <= rounds; round++) for (const [f, play] of modes) await play(f, round)
  console.log(`\nepisodes of one RL iteration (${rounds} rounds, interleaved):`)
  for (const [f] of modes) console.log(`  ${rate(f)}`)
  const perSecond = (f: Figures): number => f.episodes / f.rolloutSeconds
  console.log(
    `  2 workers / 1 worker: ${(perSecond(double) / perSecond(single)).toFixed(2)}x; 1 worker / in-process: ${(perSecond(single) / perSecond(local)).toFixed(2)}x`
  )
  const raw = await rawDecode()
  const localTokens = local.generatedTokens / local.rolloutSeconds
  console.log(
    `\nsampler raw KV-cache decode on ${slots} slots: ${raw.toFixed(0)} tok/s; the in-process rollout generates ${localTokens.toFixed(0)} tok/s = ${((100 * localTokens) / raw).toFixed(0)}% of it`
  )
  console.log(
    `  the rollout also prefills ${(local.contextTokens / local.rolloutSeconds).toFixed(0)} prompt and observation tok/s (${(local.contextTokens / local.generatedTokens).toFixed(1)} per generated token): ` +
      `${((local.contextTokens + local.generatedTokens) / local.rolloutSeconds).toFixed(0)} tok/s through the model in all`
  )
  if (process.env['WHOLE'] === '1') {
    const whole1 = figures('PPO, 1 worker process')
    const whole2 = figures('PPO, 2 worker processes')
    await train(whole1, one.right)
    await train(whole2, two.right)
    console.log(`\nwhole PPO iterations (rollout in workers + update in the trainer, ${iterations} iterations after a warm-up):`)
    for (const f of [whole1, whole2])
      console.log(
        `  ${f.label.padEnd(26)} ${(f.episodes / f.totalSeconds).toFixed(2)} episodes/s (rollout ${f.rolloutSeconds.toFixed(1)} s, update ${(f.totalSeconds - f.rolloutSeconds).toFixed(1)} s)`
      )
    console.log(`  2 workers / 1 worker: ${(whole2.episodes / whole2.totalSeconds / (whole1.episodes / whole1.totalSeconds)).toFixed(2)}x`)
  }
} finally {
  for (const r of [one.right, two.right]) await r.close()()
  for (const w of workers) w.kill('SIGTERM')
  await redis.stop()
  session.dispose()
  policy.dispose()
}
console.log(`load average after: ${Setup.load()}`)
