/**
 * Rollout threads on this machine: an RL iteration's rollout at issue 42's shape (TextWorld
 * w2-o3-q4, a freshly initialised decoder of the default recipe's shape: 2 layers, d 128, 8 heads,
 * previous-token embedding, canon span 3, context 512; 64 episodes, 16 seeds x groups of 4, at
 * most 8 turns of at most 10 new tokens at temperature 0.7) played by this thread alone
 * (`Rollout.run`) and by this thread and THREADS - 1 rollout threads (`Threads`, default 2),
 * interleaved round by round so that the machine's load weighs on each alike. Same seeds and
 * streams for both, so both play the same episodes (checked). Backend from MTRL_BACKEND (default
 * auto: wasm here); the load average is printed before and after: the figures mean something
 * only on an otherwise idle machine.
 *
 *   npm run bench:threads -w @mtrl/rollout-queue
 *   ROUNDS=5 THREADS=2 npm run bench:threads -w @mtrl/rollout-queue
 */
import { ThreadInit } from '@mtrl/backend'
import { TextWorld } from '@mtrl/env-textworld'
import { ModelConfig, Policy, Sampler } from '@mtrl/policy'
import { Rollout } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import { Threads } from '../src/index.js'
import * as Setup from './benchSetup.js'

const loadBefore = Setup.load()
const selected = await Setup.selectBackend()
const backend = selected.name

const rounds = Number(process.env['ROUNDS'] ?? 3)
const threads = Number(process.env['THREADS'] ?? 2)
const { settings } = Setup
const [seedsPerIteration, groupSize] = [16, 4]
const slots = seedsPerIteration * groupSize
const contextLength = 512
const rollout: Rollout.Options = { ...Rollout.defaultOptions, maxTurns: 8, maxNewTokens: 10, temperature: 0.7, systemPrompt: '' }

// the tokenizer from the game's own text, as a recipe builds it (the words of 40 games)
const { tokenizer, template, model } = await Setup.build(contextLength)
const policy = Policy.make(model, 0, { tokenizer })
const session = Sampler.make(policy, { slots, maxLen: contextLength })
const generator = { session, template, tokenizer, contextLength }
const envs = Array.from({ length: slots }, () => TextWorld.make(settings))
const pool = await Threads.start({
  threads,
  policy,
  rollout,
  contextLength,
  env: { textworld: 'w2-o3-q4' },
  envs: new URL('./threadEnvs.ts', import.meta.url).href,
  init: ThreadInit.init(backend)
})()
if (E.isLeft(pool)) throw new Error(Threads.message(pool.left))
console.log(
  `backend ${backend}; ${ModelConfig.parameterCount(model).toLocaleString('en')} parameters; ${slots} episodes (${seedsPerIteration} x ${groupSize}); ${threads} rollout threads; load average ${loadBefore}`
)

const seeds = Array.from({ length: seedsPerIteration }, (_, i) => 1000 + i)
const timed = async (f: () => Promise<E.Either<unknown, Rollout.Result>>): Promise<{ readonly seconds: number; readonly result: Rollout.Result }> => {
  const t0 = performance.now()
  const played = await f()
  if (E.isLeft(played)) throw new Error(JSON.stringify(played.left))
  return { seconds: (performance.now() - t0) / 1000, result: played.right }
}
const totals = { alone: 0, threaded: 0 }
for (let round = 0; round <= rounds; round++) {
  const input = { envs, seeds, groupSize, streams: { key: 77 + round, firstSlot: 0 } }
  const alone = await timed(() => Rollout.run(rollout)(generator)(input)())
  const threaded = await timed(() => pool.right.play(input, generator)())
  const same = JSON.stringify(alone.result.episodes.map((e) => e.trajectory.turns)) === JSON.stringify(threaded.result.episodes.map((e) => e.trajectory.turns))
  const tokens = alone.result.metrics.generatedTokens
  console.log(
    `round ${round}${round === 0 ? ' (warm-up)' : ''}: one thread ${alone.seconds.toFixed(2)} s, ${threads} threads ${threaded.seconds.toFixed(2)} s (x${(alone.seconds / threaded.seconds).toFixed(2)} faster; ${tokens} generated tokens; same episodes: ${same})`
  )
  if (round === 0) continue
  totals.alone += alone.seconds
  totals.threaded += threaded.seconds
}
console.log(
  `mean over ${rounds}: one thread ${(totals.alone / rounds).toFixed(2)} s, ${threads} threads ${(totals.threaded / rounds).toFixed(2)} s per rollout: x${(totals.alone / totals.threaded).toFixed(2)}; load average after: ${Setup.load()}`
)
await pool.right.dispose()
session.dispose()
policy.dispose()
