/**
 * One whole RL iteration (rollout + update in the trainer) at the shape issue 42 compares with
 * Hugging Face TRL's GRPOTrainer on this machine: TextWorld w2-o3-q4, a randomly initialised
 * decoder of the default recipe's shape (2 layers, d 128, 8 heads, previous-token embedding,
 * canon span 3, context 512), 64 episodes per iteration (16 seeds x groups of 4), at most 8
 * turns of at most 10 new tokens at temperature 0.7, one GRPO update (token-mean, no KL term:
 * TRL's defaults, beta 0) in one minibatch. Prints seconds per iteration split into rollout and
 * update, generated tokens/s, and the ratio to TRL's measured figures (7.0-7.3 s per iteration,
 * 4.6-4.9 s rollout, 2.4 s update, PyTorch 2.13 CPU fp32; issue 42).
 *
 * Settings (environment variables): MTRL_BACKEND (default auto), ALGORITHM (`grpo`, default, or
 * `reinforce++` for rl-lift's arm: 64 seeds x 1, four minibatches), REPLICAS (update threads,
 * default 2: one per core), ROLLOUT_THREADS (rollout threads, `Threads`, default 2: one per
 * core; 1: the rollout in this thread alone), MAX_STALENESS (default 0: each iteration plays,
 * then updates; 1: the next iteration's episodes are played by ROLLOUT_THREADS worker threads
 * while this thread updates, `maxStaleness` of the trainer), ITERATIONS (timed, after one
 * warm-up; default 3).
 * The figures mean
 * something only on an otherwise idle machine: the load average is printed before and after.
 *
 *   npm run bench:iteration
 *   MTRL_BACKEND=tensorflow REPLICAS=1 ROLLOUT_THREADS=1 npm run bench:iteration
 *   MAX_STALENESS=1 npm run bench:iteration
 */
import { ThreadInit } from '@mtrl/backend'
import { TextWorld } from '@mtrl/env-textworld'
import { ModelConfig, Policy } from '@mtrl/policy'
import { Config, Kl, Trainer, UpdateReplicas } from '@mtrl/trainer-rl'
import * as E from 'fp-ts/lib/Either.js'
import { Threads } from '../src/index.js'
import * as Setup from './benchSetup.js'

const loadBefore = Setup.load()
const backend = await Setup.selectBackend()

const algorithm = (process.env['ALGORITHM'] ?? 'grpo') as 'grpo' | 'reinforce++'
const replicas = Number(process.env['REPLICAS'] ?? 2)
const rolloutThreads = Number(process.env['ROLLOUT_THREADS'] ?? 2)
const iterations = Number(process.env['ITERATIONS'] ?? 3)
const maxStaleness = Number(process.env['MAX_STALENESS'] ?? 0)
const { settings } = Setup
const contextLength = 512
const budget = algorithm === 'grpo' ? { seedsPerIteration: 16, groupSize: 4 } : { seedsPerIteration: 64, groupSize: 1 }
const slots = budget.seedsPerIteration * budget.groupSize

// the tokenizer from the game's own text, as a recipe builds it (the words of 40 games)
const { tokenizer, template, model } = await Setup.build(contextLength)
const config = Config.make({
  algorithm,
  budget,
  rollout: { maxTurns: 8, maxNewTokens: 10, temperature: 0.7, systemPrompt: '' },
  kl: Kl.none,
  loss: { aggregation: 'token-mean' },
  update: { epochs: 1, minibatches: algorithm === 'grpo' ? 1 : 4 },
  priorKlEvery: 0,
  maxStaleness,
  seed: 1
})

const policy = Policy.make(model, 0, { tokenizer })
const pool = replicas > 1 ? await UpdateReplicas.start(policy, undefined, replicas - 1, ThreadInit.init(backend.name)) : undefined
const threads =
  rolloutThreads > 1 || maxStaleness > 0
    ? await Threads.start({
        threads: rolloutThreads,
        policy,
        rollout: config.rollout,
        contextLength,
        env: { textworld: 'w2-o3-q4' },
        envs: new URL('./threadEnvs.ts', import.meta.url).href,
        init: ThreadInit.init(backend.name),
        callerPlays: maxStaleness === 0
      })()
    : undefined
if (threads !== undefined && E.isLeft(threads)) throw new Error(Threads.message(threads.left))
const trainer = Trainer.make({
  config,
  policy,
  envs: Array.from({ length: slots }, () => TextWorld.make(settings)),
  template,
  tokenizer,
  contextLength,
  ...(pool === undefined ? {} : { replicas: pool }),
  ...(threads === undefined ? {} : { play: threads.right.play })
})
console.log(
  `backend ${backend.name} via ${backend.via}; ${ModelConfig.parameterCount(model).toLocaleString('en')} parameters; ${algorithm}, ${slots} episodes per iteration (${budget.seedsPerIteration} x ${budget.groupSize}), update threads ${replicas}, rollout threads ${rolloutThreads}${maxStaleness > 0 ? ` (workers, playing ${maxStaleness} ahead while this thread updates)` : ''}; load average ${loadBefore}`
)

const totals = { seconds: 0, rollout: 0, wait: 0, update: 0, tokens: 0 }
for (let i = 0; i <= iterations; i++) {
  const t0 = performance.now()
  // played ahead without end, as in a long run: the last timed iteration overlaps as the others (its extra rollout is dropped)
  const metrics = await Trainer.iterate(trainer)()
  if (E.isLeft(metrics)) throw new Error(JSON.stringify(metrics.left))
  const seconds = (performance.now() - t0) / 1000
  const m = metrics.right
  const line = `iteration ${i}${i === 0 ? ' (warm-up)' : ''}: ${seconds.toFixed(2)} s (rollout ${m['time/rollout_s'].toFixed(2)} s, waited ${m['time/wait_s'].toFixed(2)} s, update ${m['time/update_s'].toFixed(2)} s), ${m['perf/tokens_per_s'].toFixed(0)} generated tok/s`
  console.log(line)
  if (i === 0) continue
  totals.seconds += seconds
  totals.rollout += m['time/rollout_s']
  totals.wait += m['time/wait_s']
  totals.update += m['time/update_s']
  totals.tokens += m['perf/tokens_per_s'] * m['time/rollout_s']
}
await Trainer.settle(trainer)
trainer.dispose()
await pool?.dispose()
if (threads !== undefined) await threads.right.dispose()
policy.dispose()

const mean = (x: number): number => x / iterations
const trl = { seconds: 7.15, rollout: 4.75, update: 2.4, tokensPerSecond: 1062 }
console.log(
  `mean over ${iterations}: ${mean(totals.seconds).toFixed(2)} s per iteration (rollout ${mean(totals.rollout).toFixed(2)} s, waited ${mean(totals.wait).toFixed(2)} s, update ${mean(totals.update).toFixed(2)} s), ${(totals.tokens / totals.rollout).toFixed(0)} generated tok/s`
)
if (algorithm === 'grpo')
  console.log(
    `vs TRL 1.13 GRPOTrainer here (medians ${trl.seconds} s, rollout ${trl.rollout} s, update ${trl.update} s, ${trl.tokensPerSecond} tok/s): iteration x${(mean(totals.seconds) / trl.seconds).toFixed(2)}, rollout x${(mean(totals.rollout) / trl.rollout).toFixed(2)}, update x${(mean(totals.update) / trl.update).toFixed(2)} (time; < 1 is faster)`
  )
console.log(`load average after: ${Setup.load()}`)
