/**
 * Training-step throughput for the app's default recipe model (vocab 584, d 128, 2 layers,
 * 4 heads, ffn 512, SwiGLU, RMSNorm, RoPE, tied embeddings) at the batch shape SFT and RL
 * train on (8 rows x 256 tokens): forward + backward (`tf.variableGrads`) and the full step with
 * an Adam update written as the trainers write it (per variable: m, v, w), tokens/s.
 *
 * `BENCH_PROFILE=1` also prints the kernels of one forward + backward by total time.
 * `BENCH_LAYERS`, `BENCH_HEADS`, `BENCH_CANON` (canon span), `BENCH_BATCH`, `BENCH_SEQ` change the
 * shape.
 *
 * Run: MTRL_BACKEND=wasm npm run bench -w @mtrl/policy
 */
import { Backend } from '@mtrl/backend'
import { Rng } from '@mtrl/core'
import * as tf from '@tensorflow/tfjs'
import { ModelConfig, Policy, Scoring } from '../src/index.js'
import { bestOf } from './timing.js'

const main = async (): Promise<void> => {
  const selected = await Backend.selectFromEnvironment()()
  if (selected._tag === 'Left') throw new Error(Backend.message(selected.left))
  const config = ModelConfig.make({
    vocab: 584,
    dModel: 128,
    layers: Number(process.env['BENCH_LAYERS'] ?? 2),
    heads: Number(process.env['BENCH_HEADS'] ?? 4),
    ffn: 512,
    tiedEmbeddings: true,
    maxLen: 512,
    prevTokenEmbedding: true,
    canonSpan: Number(process.env['BENCH_CANON'] ?? 0)
  })
  const B = Number(process.env['BENCH_BATCH'] ?? 8)
  const T = Number(process.env['BENCH_SEQ'] ?? 256)
  const policy = Policy.make(config, 0)
  const rng = Rng.make(0)
  const ids = tf.tensor2d(
    Int32Array.from({ length: B * T }, () => rng.int(config.vocab)),
    [B, T],
    'int32'
  )
  const mask = tf.ones([B, T])
  const vars = Policy.trainableVariables(policy)
  const loss = (): tf.Scalar =>
    tf.tidy(() => tf.div(tf.neg(tf.sum(tf.mul(Scoring.tokenLogprobs(policy, { entropy: false })(ids).logprobs, mask))), tf.sum(mask)) as tf.Scalar)
  const m = vars.map((w) => tf.variable(tf.zerosLike(w), false))
  const v = vars.map((w) => tf.variable(tf.zerosLike(w), false))
  const grads = (): void => {
    const { value, grads } = tf.variableGrads(loss, vars)
    value.dataSync()
    tf.dispose([value, ...Object.values(grads)])
  }
  const step = (): void => {
    const { value, grads } = tf.variableGrads(loss, vars)
    const gs = vars.map((w) => grads[w.name]!)
    const norm = tf.tidy(() => tf.sqrt(tf.addN(gs.map((g) => tf.sum(tf.square(g))))))
    norm.dataSync()
    tf.tidy(() =>
      vars.forEach((w, i) => {
        const mi = tf.add(tf.mul(m[i]!, 0.9), tf.mul(gs[i]!, 0.1))
        const vi = tf.add(tf.mul(v[i]!, 0.999), tf.mul(tf.square(gs[i]!), 0.001))
        m[i]!.assign(mi)
        v[i]!.assign(vi)
        w.assign(tf.sub(w, tf.mul(tf.div(mi, tf.add(tf.sqrt(vi), 1e-8)), 1e-4)))
      })
    )
    value.dataSync()
    tf.dispose([value, norm, ...Object.values(grads)])
  }
  const runs = Number(process.env['BENCH_RUNS'] ?? 5)
  const gradS = bestOf(runs, grads)
  const stepS = bestOf(runs, step)
  console.log(`backend ${selected.right.name}; recipe model (${ModelConfig.parameterCount(config).toLocaleString()} params), batch ${B} x seq ${T}`)
  console.log(`  fwd+bwd    ${((B * T) / gradS).toFixed(0).padStart(7)} tok/s  (${(gradS * 1000).toFixed(0)} ms)`)
  console.log(`  train step ${((B * T) / stepS).toFixed(0).padStart(7)} tok/s  (${(stepS * 1000).toFixed(0)} ms, Adam included)`)
  if (process.env['BENCH_PROFILE'] === '1') {
    const info = await tf.profile(grads)
    const byKernel = new Map<string, { ms: number; n: number }>()
    for (const k of info.kernels) {
      const key = `${k.name} ${JSON.stringify(k.inputShapes)}`
      const e = byKernel.get(key) ?? { ms: 0, n: 0 }
      e.ms += typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0
      e.n += 1
      byKernel.set(key, e)
    }
    const total = [...byKernel.values()].reduce((a, e) => a + e.ms, 0)
    console.log(`  profile: ${info.kernels.length} kernels, ${total.toFixed(0)} ms kernel time`)
    for (const [key, e] of [...byKernel.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, Number(process.env['BENCH_TOP'] ?? 40)))
      console.log(`  ${e.ms.toFixed(1).padStart(8)} ms ${String(e.n).padStart(4)}x  ${key}`)
  }
  tf.dispose([ids, mask, ...m, ...v])
  policy.dispose()
}

void main()
