/**
 * One RL iteration's update on the active backend (MTRL_BACKEND, default auto), at the shape of
 * recipes/paper/rl-lift.json: 64 episodes of 180-360 tokens (a prompt, then five turns of a
 * 4-token action and an observation), its model (dModel 128, 2 layers, 8 heads, previous-token
 * embedding, canon span 3), two passes over 4 minibatches. Times the critic's values over the
 * batch plus the update, for PPO with a separate critic, PPO with a critic sharing the policy's
 * trunk (one forward and backward per minibatch), and a critic-free loss (REINFORCE++, GRPO,
 * RLOO), each alone and (separate critic, critic-free) with BENCH_REPLICAS - 1 data-parallel
 * worker replicas (`UpdateReplicas`, default BENCH_REPLICAS 2), best of BENCH_RUNS (default 2)
 * after one warm-up, and prints the ratios. On wasm it also prints the wasm heap (which never
 * shrinks) after those updates, in micro-batches of `microBatchTokens` (default 4096), and after
 * one more critic-free update in one thread with whole minibatches (no micro-batching).
 *
 * Run: npm run bench -w @mtrl/trainer-rl
 */
import { Backend, ThreadInit } from '@mtrl/backend'
import { Rng, type Trajectory } from '@mtrl/core'
import { Optimizer } from '@mtrl/optim'
import { Critic, ModelConfig, Policy } from '@mtrl/policy'
import { Batch } from '@mtrl/rollout'
import * as tf from '@tensorflow/tfjs'
import { cpus, loadavg } from 'node:os'
import { make, override, resolve, type Config, type Overrides } from '../src/Config.js'
import * as forward from '../src/internal/forward.js'
import { update } from '../src/internal/update.js'
import * as UpdateReplicas from '../src/UpdateReplicas.js'

const VOCAB = 1000
const EPISODES = Number(process.env['BENCH_EPISODES'] ?? 64)
const RUNS = Number(process.env['BENCH_RUNS'] ?? 2)
const REPLICAS = Number(process.env['BENCH_REPLICAS'] ?? 2)

const selectBackend = async (): Promise<Backend.Selected> => {
  const result = await Backend.selectFromEnvironment()()
  if (result._tag === 'Left') throw new Error(Backend.message(result.left))
  return result.right
}

const tokens = (rng: Rng.Rng, n: number): Int32Array => Int32Array.from({ length: n }, () => 4 + rng.int(VOCAB - 4))

/** An episode of about `length` tokens: a prompt, then five turns of a 4-token action and an observation. */
const episode = (rng: Rng.Rng, seed: number, length: number): Trajectory.Trajectory => {
  const turns = 5
  const prompt = 120
  const observation = Math.max(4, Math.floor((length - prompt - 4 * turns) / (turns - 1)))
  const segments: Trajectory.Segment[] = [{ kind: 'prompt', turn: 0, tokens: tokens(rng, prompt) }]
  for (let t = 0; t < turns; t++) {
    segments.push({ kind: 'action', turn: t, tokens: tokens(rng, 4) })
    if (t < turns - 1) segments.push({ kind: 'observation', turn: t, tokens: tokens(rng, observation) })
  }
  const turn: Trajectory.Turn = { action: 'a', reward: 0, valid: true, parsed: true, score: 0, maxScore: 1 }
  return {
    env: 'bench',
    seed,
    groupId: `bench:${seed}`,
    segments,
    turns: Array.from({ length: turns }, () => turn),
    turnRewards: [0, 0, 0, 0, 1],
    won: true,
    truncated: false
  }
}

const secondsOf = (f: () => void): number => {
  const t0 = performance.now()
  f()
  return (performance.now() - t0) / 1000
}

const main = async (): Promise<void> => {
  const backend = await selectBackend()
  const config = ModelConfig.make({ vocab: VOCAB, dModel: 128, layers: 2, heads: 8, maxLen: 512, prevTokenEmbedding: true, canonSpan: 3 })
  const rng = Rng.make(1)
  const batch = Batch.make({ pad: 0 })(Array.from({ length: EPISODES }, (_, i) => episode(rng, i, 180 + rng.int(181))))
  const real = batch.lengths.reduce((a, b) => a + b, 0)
  const rlConfig: Config = make({ update: { epochs: 2, minibatches: 4 }, rollout: { temperature: 0.7 } })
  const advantages = Float32Array.from({ length: batch.batch * batch.time }, () => rng.next() * 2 - 1)
  const returns = Float32Array.from({ length: batch.batch * batch.time }, () => rng.next() * 2 - 1)

  const time = async (mode: 'separate' | 'shared' | 'none', workers = 0, overrides: Overrides = {}): Promise<number> => {
    const policy = Policy.make(config, 0)
    const critic = mode === 'none' ? undefined : Critic.make(policy, { shareTrunk: mode === 'shared' }, 1)
    const replicas = workers === 0 ? undefined : await UpdateReplicas.start(policy, critic, workers, ThreadInit.init(backend.name))
    const policyOptimizer = Optimizer.make(Policy.trainableVariables(policy))
    const criticOptimizer = critic === undefined ? undefined : Optimizer.make(Critic.trainableVariables(critic))
    const oldLogprobs = forward.logprobs(policy, batch, 0.7)
    const iteration = (): void => {
      const oldValues = critic === undefined ? undefined : forward.valuesBefore(forward.valuesAfter(critic, batch), batch)
      update(
        {
          config: resolve(override({ ...overrides, loss: { ...overrides.loss, policyLoss: mode === 'none' ? 'policyGradient' : 'ppo' } })(rlConfig)),
          policy,
          critic,
          policyOptimizer,
          criticOptimizer,
          policyLr: 1e-5,
          updatePolicy: true,
          klCoef: 0,
          shuffle: Rng.make(2),
          ...(replicas === undefined ? {} : { replicas })
        },
        { batch, oldLogprobs, advantages, returns, ...(oldValues === undefined ? {} : { oldValues }) }
      )
    }
    iteration()
    let best = Infinity
    for (let r = 0; r < RUNS; r++) best = Math.min(best, secondsOf(iteration))
    await replicas?.dispose()
    policyOptimizer.dispose()
    criticOptimizer?.dispose()
    critic?.dispose()
    policy.dispose()
    return best
  }

  console.log(
    `backend ${backend.name}, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}; ${EPISODES} episodes, ${real} real tokens in a ${batch.batch} x ${batch.time} batch; 2 passes x 4 minibatches; best of ${RUNS}`
  )
  const line = (label: string, seconds: number, against?: number): void =>
    console.log(
      `${label.padEnd(40)} ${seconds.toFixed(2)} s  (${Math.round((2 * real) / seconds)} tokens/s per pass)${against === undefined ? '' : `  ${(against / seconds).toFixed(2)}x as fast`}`
    )
  const separate = await time('separate')
  line('PPO, separate critic:', separate)
  line('PPO, critic sharing the trunk:', await time('shared'), separate)
  const none = await time('none')
  line('critic-free (REINFORCE++ etc.):', none, separate)
  if (REPLICAS > 1) {
    line(`PPO, separate critic, ${REPLICAS} replicas:`, await time('separate', REPLICAS - 1), separate)
    line(`critic-free, ${REPLICAS} replicas:`, await time('none', REPLICAS - 1), none)
  }
  const heap = (): number | undefined => (tf.backend() as { readonly wasm?: { readonly HEAPU8: Uint8Array } }).wasm?.HEAPU8.length
  const micro = heap()
  if (micro !== undefined) {
    await time('none', 0, { update: { microBatchTokens: 1e9 } })
    const whole = heap()!
    console.log(
      `wasm heap: ${(micro / 2 ** 30).toFixed(2)} GiB after the updates above (micro-batches of ${rlConfig.update.microBatchTokens} tokens), ${(whole / 2 ** 30).toFixed(2)} GiB after one critic-free update with whole minibatches (${EPISODES / 4} episodes)`
    )
  }
}

void main()
