/**
 * SFT step throughput with and without data-parallel replicas, on the app's default recipe model
 * (vocab 604, d 128, 2 layers, 4 heads, SwiGLU, RoPE, tied embeddings) and its batch shape (4
 * rows of ~232 tokens, the context loss and the weight average on): tokens/s of `Sft.train`
 * alone and with 1 worker replica, and their ratio. `BENCH_ROWS`, `BENCH_SEQ`, `BENCH_STEPS`
 * change the shape.
 *
 * Run: MTRL_BACKEND=wasm npm run bench -w @mtrl/trainer-sft
 */
import { Backend, ThreadInit } from '@mtrl/backend'
import { Rng, type Trajectory } from '@mtrl/core'
import { ModelConfig, Policy } from '@mtrl/policy'
import * as Replicas from '../src/Replicas.js'
import * as Sft from '../src/Sft.js'

/** `n` synthetic demonstrations of `length` tokens: a prompt, then action/observation turns. */
const demos = (n: number, length: number, vocab: number, rng: Rng.Rng): Trajectory.Trajectory[] =>
  Array.from({ length: n }, (_, i) => {
    const tokens = (k: number): Int32Array => Int32Array.from({ length: k }, () => 1 + rng.int(vocab - 1))
    const segments: Trajectory.Trajectory['segments'][number][] = [{ kind: 'prompt', turn: 0, tokens: tokens(length - 8 * 24) }]
    for (let t = 0; t < 8; t++) segments.push({ kind: 'action', turn: t, tokens: tokens(6) }, { kind: 'observation', turn: t, tokens: tokens(18) })
    return { env: 'bench', seed: i, segments, turns: [], turnRewards: [], won: false, truncated: false } as unknown as Trajectory.Trajectory
  })

const main = async (): Promise<void> => {
  const selected = await Backend.selectFromEnvironment()()
  if (selected._tag === 'Left') throw new Error(Backend.message(selected.left))
  const config = ModelConfig.make({ vocab: 604, dModel: 128, layers: 2, heads: 4, ffn: 512, tiedEmbeddings: true, maxLen: 512 })
  const rows = Number(process.env['BENCH_ROWS'] ?? 4)
  const length = Number(process.env['BENCH_SEQ'] ?? 232)
  const steps = Number(process.env['BENCH_STEPS'] ?? 40)
  const data = demos(rows * steps, length, config.vocab, Rng.make(0))
  const options: Sft.Options = {
    ...Sft.defaultOptions,
    epochs: 1,
    batchSize: rows,
    learningRate: 1e-3,
    heldOutFraction: 0,
    contextWeight: 0.3,
    emaDecay: 0.995
  }
  const time = async (workers: number): Promise<number> => {
    const policy = Policy.make(config, 0)
    const pool = await Replicas.start(policy, workers, ThreadInit.init(selected.right.name))
    try {
      Sft.train({ ...options, epochs: 1 })(policy)(data.slice(0, rows * 3), {}, pool) // warm-up
      const t0 = performance.now()
      Sft.train(options)(policy)(data, {}, pool)
      return (performance.now() - t0) / 1000
    } finally {
      await pool.dispose()
      policy.dispose()
    }
  }
  const alone = await time(0)
  const two = await time(1)
  const tokens = rows * steps * length
  console.log(
    `backend ${selected.right.name}; default recipe model (${ModelConfig.parameterCount(config).toLocaleString()} params), ${steps} steps of ${rows} x ${length} tokens, context loss, weight average`
  )
  console.log(`  1 replica   ${(tokens / alone).toFixed(0).padStart(6)} tok/s  (${((alone / steps) * 1000).toFixed(0)} ms/step)`)
  console.log(`  2 replicas  ${(tokens / two).toFixed(0).padStart(6)} tok/s  (${((two / steps) * 1000).toFixed(0)} ms/step)  x${(alone / two).toFixed(2)}`)
}

void main()
