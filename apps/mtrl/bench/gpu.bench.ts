/**
 * What tools/gpu-check.sh measures on a backend (`MTRL_BACKEND`, default auto) at one shape
 * (`BENCH_SHAPE`: `default`, recipes/default.json's model; `qwen3-0.6b`, Qwen3-0.6B's
 * dimensions with random weights; `tiny`, a check that it runs), printed as one JSON line:
 * - `sft_tokens_per_s`: an SFT step (forward, backward, global-norm clip, Adam) on B x T tokens;
 * - `sample_tokens_per_s`: KV-cached sampling of `NEW` tokens in `S` slots after a P-token prompt;
 * - `rl_iteration_s`: one RL iteration's model work: that sampling, scoring the sequences with the
 *   policy (old log-probs), and a PPO step on them with group-normalised (GRPO) advantages;
 * - the dispatches: `sft_kernels` (kernels of one SFT step), `sample_kernels_per_step` and
 *   `sample_reads_per_step` (kernels and synchronous reads per decoding step of all slots), and
 *   `kernel_ms` (the wall time of one small kernel, a negation of 4,096 numbers, dispatched 200
 *   times without a read: on webgpu, the proxy's round trip to its thread plus the GPU's work).
 * tools/gpu-check/torch_bench.py measures the same in PyTorch. Run:
 *   MTRL_BACKEND=webgpu BENCH_SHAPE=default npx tsx --conditions=@mtrl/source apps/mtrl/bench/gpu.bench.ts
 */
import { Backend } from '@mtrl/backend'
import { Rng } from '@mtrl/core'
import { Optimizer } from '@mtrl/optim'
import { ModelConfig, Policy, Sampler, Scoring } from '@mtrl/policy'
import { Ppo } from '@mtrl/trainer-rl'
import * as tf from '@tensorflow/tfjs'

interface Shape {
  readonly config: ModelConfig.ModelConfig
  readonly batch: number
  readonly time: number
  readonly slots: number
  readonly prompt: number
  readonly newTokens: number
}

const shapes: Record<string, Shape> = {
  // a check that the bench runs (seconds on any backend), not a figure
  tiny: { config: ModelConfig.make({ vocab: 64, dModel: 32, layers: 1, heads: 2, maxLen: 64 }), batch: 2, time: 48, slots: 2, prompt: 8, newTokens: 4 },
  default: {
    config: ModelConfig.make({ vocab: 584, dModel: 128, layers: 2, heads: 8, maxLen: 512, prevTokenEmbedding: true, canonSpan: 3 }),
    batch: 8,
    time: 256,
    slots: 16,
    prompt: 64,
    newTokens: 32
  },
  'qwen3-0.6b': {
    config: ModelConfig.make({
      vocab: 151936,
      dModel: 1024,
      layers: 28,
      heads: 16,
      kvHeads: 8,
      headDim: 128,
      ffn: 3072,
      maxLen: 512,
      tiedEmbeddings: true,
      qkNorm: 'head',
      ropeTheta: 1e6,
      normEps: 1e-6
    }),
    batch: 4,
    time: 256,
    slots: 8,
    prompt: 64,
    newTokens: 32
  }
}

const seconds = (f: () => void, repeats: number): number => {
  f() // warm-up: shaders compile, buffers are allocated
  let best = Number.POSITIVE_INFINITY
  for (let i = 0; i < repeats; i++) {
    const start = performance.now()
    f()
    best = Math.min(best, (performance.now() - start) / 1000)
  }
  return best
}

/** Kernels `f` runs, and the synchronous reads it makes (counted on the active backend). */
const dispatches = async (f: () => void): Promise<{ readonly kernels: number; readonly reads: number }> => {
  const backend = tf.backend() as unknown as { readSync: (dataId: object) => unknown }
  const readSync = backend.readSync
  let reads = 0
  backend.readSync = (dataId) => {
    reads++
    return readSync.call(backend, dataId)
  }
  try {
    const { kernels } = await tf.profile(f)
    return { kernels: kernels.length, reads }
  } finally {
    backend.readSync = readSync
  }
}

/** The wall time of one small kernel with no read, in milliseconds. */
const kernelMs = (): number => {
  const x = tf.ones([4096])
  tf.tidy(() => tf.neg(x)).dataSync() // warm-up
  const start = performance.now()
  for (let i = 0; i < 200; i++) tf.tidy(() => void tf.neg(x))
  tf.tidy(() => tf.neg(x)).dataSync() // the queue drained
  x.dispose()
  return (performance.now() - start) / 201
}

const randomIds = (rng: Rng.Rng, n: number, vocab: number): Int32Array => Int32Array.from({ length: n }, () => rng.int(vocab))

/** KV-cached sampling in every slot; returns prompt + generated tokens per slot. */
const sample = (policy: Policy.Policy, shape: Shape, rng: Rng.Rng): Int32Array[] => {
  const session = Sampler.make(policy, { slots: shape.slots, maxLen: shape.prompt + shape.newTokens })
  const slots = Array.from({ length: shape.slots }, (_, i) => i)
  const prompts = slots.map(() => randomIds(rng, shape.prompt, shape.config.vocab))
  session.append(slots, prompts)
  const gens = session.generate(slots, { maxNewTokens: shape.newTokens, temperature: 1, stopTokens: [], rng })
  session.dispose()
  return gens.map((g, i) => Int32Array.from([...prompts[i]!, ...g.tokens].slice(0, shape.prompt + shape.newTokens)))
}

/** Scores the sampled rows (old log-probs), then one PPO step on them with GRPO advantages (groups of 4). */
const rlUpdate = (policy: Policy.Policy, adam: Optimizer.Optimizer, rows: ReadonlyArray<Int32Array>, generated: number): void => {
  const T = rows[0]!.length
  const ids = tf.tensor2d(Int32Array.from(rows.flatMap((r) => Array.from(r))), [rows.length, T], 'int32')
  const mask = tf.tidy(() => tf.concat([tf.zeros([rows.length, T - generated]), tf.ones([rows.length, generated])], 1))
  const old = tf.tidy(() => Scoring.tokenLogprobs(policy, { entropy: false })(ids).logprobs)
  const outcomes = rows.map((_, i) => (i % 2 === 0 ? 1 : 0))
  const advantages = tf.tidy(() =>
    tf.mul(
      tf.tensor2d(
        outcomes.map((o) => (o - 0.5) / 0.577),
        [rows.length, 1]
      ),
      mask
    )
  )
  Optimizer.step(adam, { learningRate: 1e-5, maxNorm: 1 }, () => ({
    loss: Ppo.loss(Ppo.defaultOptions)({ logprobs: Scoring.tokenLogprobs(policy, { entropy: false })(ids).logprobs, oldLogprobs: old, advantages, mask })
      .loss as tf.Scalar
  }))
  tf.dispose([ids, mask, old, advantages])
}

const main = async (): Promise<void> => {
  const selected = await Backend.selectFromEnvironment()()
  if (selected._tag === 'Left') throw new Error(Backend.message(selected.left))
  const name = process.env['BENCH_SHAPE'] ?? 'default'
  const shape = shapes[name]
  if (shape === undefined) throw new Error(`BENCH_SHAPE: expected one of ${Object.keys(shapes).join(', ')}, got ${name}`)
  const repeats = Number(process.env['BENCH_REPEATS'] ?? 3)
  const rng = Rng.make(0)
  const policy = Policy.make(shape.config, 0)
  const vars = Policy.trainableVariables(policy)
  const adam = Optimizer.make(vars)
  const ids = tf.tensor2d(randomIds(rng, shape.batch * shape.time, shape.config.vocab), [shape.batch, shape.time], 'int32')
  const sft = seconds(
    () =>
      Optimizer.step(adam, { learningRate: 1e-5, maxNorm: 1 }, () => ({
        loss: tf.neg(tf.mean(Scoring.tokenLogprobs(policy, { entropy: false })(ids).logprobs)) as tf.Scalar
      })),
    repeats
  )
  const sftCount = await dispatches(
    () =>
      void Optimizer.step(adam, { learningRate: 1e-5, maxNorm: 1 }, () => ({
        loss: tf.neg(tf.mean(Scoring.tokenLogprobs(policy, { entropy: false })(ids).logprobs)) as tf.Scalar
      }))
  )
  ids.dispose()
  // per decoding step: sampling NEW tokens less sampling 1 (the same prompt), over NEW - 1 steps
  const one = await dispatches(() => void sample(policy, { ...shape, newTokens: 1 }, Rng.make(1)))
  const all = await dispatches(() => void sample(policy, shape, Rng.make(1)))
  const sampling = seconds(() => void sample(policy, shape, rng), repeats)
  const rl = seconds(() => rlUpdate(policy, adam, sample(policy, shape, rng), shape.newTokens), repeats)
  const params = vars.reduce((n, v) => n + v.size, 0)
  adam.dispose()
  policy.dispose()
  const result = {
    shape: name,
    backend: selected.right.name,
    adapter: selected.right.adapter ?? null,
    params,
    sft_tokens_per_s: (shape.batch * shape.time) / sft,
    sample_tokens_per_s: (shape.slots * shape.newTokens) / sampling,
    rl_iteration_s: rl,
    sft_kernels: sftCount.kernels,
    sample_kernels_per_step: (all.kernels - one.kernels) / (shape.newTokens - 1),
    sample_reads_per_step: (all.reads - one.reads) / (shape.newTokens - 1),
    kernel_ms: kernelMs()
  }
  process.stdout.write(`${JSON.stringify(result)}\n`)
}

void main()
