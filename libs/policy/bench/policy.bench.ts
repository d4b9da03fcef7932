/**
 * Policy throughput on the active backend (MTRL_BACKEND, default auto): train tokens/s
 * (forward + backward + Adam), full-sequence scoring tokens/s and KV-cache sampling tokens/s,
 * for a small and a medium model, plus the backend's large-matmul GFLOP/s measured in the same
 * run and each figure's achieved FLOP rate as a fraction of it.
 *
 * Run: npm run bench -w @mtrl/policy
 */
import { Backend } from '@mtrl/backend'
import { Rng } from '@mtrl/core'
import * as tf from '@tensorflow/tfjs'
import { cpus, loadavg } from 'node:os'
import { ModelConfig, Policy, Sampler, Scoring } from '../src/index.js'
import { bestOf, now } from './timing.js'

const selectBackend = async (): Promise<Backend.Selected> => {
  const result = await Backend.selectFromEnvironment()()
  if (result._tag === 'Left') throw new Error(Backend.message(result.left))
  return result.right
}

/** GFLOP/s of a [n, n] x [n, n] product, best of a few (the backend's large-matmul rate). */
const matmulGflops = (n: number): number => {
  const a = tf.randomNormal([n, n])
  const b = tf.randomNormal([n, n])
  const best = bestOf(5, () => tf.tidy(() => void tf.matMul(a, b).dataSync()))
  a.dispose()
  b.dispose()
  return (2 * n * n * n) / best / 1e9
}

interface Bench {
  readonly name: string
  readonly config: ModelConfig.ModelConfig
  readonly seq: number
  readonly batch: number
}

/** Forward FLOPs per token at context length `ctx`: 2 per weight use + causal attention. */
const forwardFlopsPerToken = (config: ModelConfig.ModelConfig, ctx: number): number => {
  const nonEmbedding = ModelConfig.parameterCount(config) - config.vocab * config.dModel * (config.tiedEmbeddings ? 1 : 2)
  return 2 * nonEmbedding + 2 * config.vocab * config.dModel + 4 * config.layers * ctx * config.dModel
}

const randomIds = (rng: Rng.Rng, b: number, t: number, vocab: number): tf.Tensor2D =>
  tf.tensor2d(
    Int32Array.from({ length: b * t }, () => rng.int(vocab)),
    [b, t],
    'int32'
  )

const run = (bench: Bench, gflops: number): void => {
  const { config, seq: T, batch: B } = bench
  const policy = Policy.make(config, 0)
  const rng = Rng.make(0)
  const ids = randomIds(rng, B, T, config.vocab)
  const optimizer = tf.train.adam(3e-4)
  const vars = Policy.trainableVariables(policy)
  const loss = (): tf.Scalar => tf.neg(tf.mean(Scoring.tokenLogprobs(policy, { entropy: false })(ids).logprobs)) as tf.Scalar
  const runs = bench.name === 'small' ? 5 : 3
  const trainS = bestOf(runs, () => {
    const l = optimizer.minimize(loss, true, vars)
    l?.dataSync()
    l?.dispose()
  })
  const scoreS = bestOf(runs, () =>
    tf.tidy(() => {
      const s = Scoring.tokenLogprobs(policy)(ids)
      s.logprobs.dataSync()
      s.entropy.dataSync()
    })
  )
  const prompt = 16
  const newTokens = 64
  const slots = Array.from({ length: B }, (_, i) => i)
  let prefillS = Infinity
  let decodeS = Infinity
  for (let r = 0; r <= runs; r++) {
    const session = Sampler.make(policy, { slots: B, maxLen: prompt + newTokens })
    const p0 = now()
    session.append(
      slots,
      slots.map(() => Int32Array.from({ length: prompt }, () => rng.int(config.vocab)))
    )
    const g0 = now()
    session.generate(slots, { maxNewTokens: newTokens, temperature: 1, stopTokens: [], rng })
    const g1 = now()
    session.dispose()
    if (r === 0) continue // warm-up
    prefillS = Math.min(prefillS, (g0 - p0) / 1000)
    decodeS = Math.min(decodeS, (g1 - g0) / 1000)
  }
  const t1 = { prefill: prefillS, decode: decodeS }
  const tokens = B * T
  const trainTps = tokens / trainS
  const scoreTps = tokens / scoreS
  const sampleTps = (B * newTokens) / t1.decode
  const fwdTrain = forwardFlopsPerToken(config, T / 2)
  const fwdSample = forwardFlopsPerToken(config, prompt + newTokens / 2)
  const frac = (flopsPerSecond: number): string => `${((100 * flopsPerSecond) / (gflops * 1e9)).toFixed(1)}%`
  console.log(
    `\n${bench.name}: vocab ${config.vocab}, d ${config.dModel}, ${config.layers} layers, ${config.heads} heads, ffn ${config.ffn} (${config.activation}, ${config.positional}, ${config.norm}), ${ModelConfig.parameterCount(config).toLocaleString()} params, seq ${T}, batch ${B}`
  )
  console.log(`  train    ${trainTps.toFixed(0).padStart(8)} tok/s  (${(trainS * 1000).toFixed(0)} ms/step)  ${frac(trainTps * 3 * fwdTrain)} of matmul peak`)
  console.log(`  score    ${scoreTps.toFixed(0).padStart(8)} tok/s  (${(scoreS * 1000).toFixed(0)} ms/batch) ${frac(scoreTps * fwdTrain)} of matmul peak`)
  console.log(
    `  sample   ${sampleTps.toFixed(0).padStart(8)} tok/s  (KV cache, batch ${B}, ${prompt}-token prompt, ${newTokens} new; prefill ${(t1.prefill * 1000).toFixed(0)} ms)  ${frac(sampleTps * fwdSample)} of matmul peak`
  )
  optimizer.dispose()
  ids.dispose()
  policy.dispose()
}

const main = async (): Promise<void> => {
  const selected = await selectBackend()
  console.log(
    `backend: ${selected.name} via ${selected.via}, ${selected.threads} thread(s); load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${cpus().length} CPUs`
  )
  const gflops = matmulGflops(1024)
  console.log(`large matmul [1024x1024]x[1024x1024]: ${gflops.toFixed(2)} GFLOP/s`)
  const only = process.env['BENCH_ONLY']
  const benches: Bench[] = [
    { name: 'small', config: ModelConfig.make({ vocab: 512, dModel: 128, layers: 2, heads: 4, maxLen: 256 }), seq: 128, batch: 16 },
    { name: 'medium', config: ModelConfig.make({ vocab: 2048, dModel: 256, layers: 4, heads: 8, maxLen: 256 }), seq: 256, batch: 8 }
  ]
  for (const bench of benches) if (only === undefined || only === bench.name) run(bench, gflops)
  console.log(
    `\n(best of several runs; fractions: model FLOPs (2 per weight per token + causal attention; train = 3x forward) per second over the large-matmul rate)`
  )
}

void main()
