/**
 * One LoRA SFT step's forward and backward pass at a Hugging Face folder's shape (issue 57), timed
 * and profiled: wall and CPU seconds of the forward pass alone and of forward + backward (the
 * trainers' gradient walk, `Backprop.variableGrads`, or tfjs's own with `--engine`), peak resident
 * memory, and with `--kernels` the backend's kernels by time (`tf.profile`).
 *
 *   MTRL_BACKEND=tensorflow npx tsx --conditions=@mtrl/source apps/mtrl/bench/sftStep.profile.ts DIR [--batch 2] [--seq 256] [--recompute] [--engine] [--kernels]
 */
import { Backend } from '@mtrl/backend'
import { Rng } from '@mtrl/core'
import { Backprop } from '@mtrl/optim'
import { Agent, Policy, Scoring } from '@mtrl/policy'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import { parseArgs } from 'node:util'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    batch: { type: 'string', default: '2' },
    seq: { type: 'string', default: '256' },
    recompute: { type: 'boolean', default: false },
    engine: { type: 'boolean', default: false },
    kernels: { type: 'boolean', default: false }
  }
})
const dir = positionals[0]
if (dir === undefined) throw new Error('usage: sftStep.profile.ts DIR [--batch B] [--seq T] [--recompute] [--engine] [--kernels]')
const B = Number(values.batch)
const T = Number(values.seq)
const selected = await Backend.selectFromEnvironment()()
if (E.isLeft(selected)) throw new Error(Backend.message(selected.left))
const lora = { rank: 16, alpha: 32, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const }
const loaded = await Agent.pretrained(dir, { lora, maxLen: T + 16 })()
if (E.isLeft(loaded)) throw new Error(JSON.stringify(loaded.left))
const policy = loaded.right.policy
const variables = Policy.trainableVariables(policy)
const rng = Rng.make(0)
const ids = tf.tensor2d(
  Int32Array.from({ length: B * T }, () => rng.int(policy.config.vocab)),
  [B, T],
  'int32'
)
const loss = (): tf.Scalar =>
  tf.tidy(() => tf.neg(tf.mean(Scoring.tokenLogprobs(policy, { entropy: false, recompute: values.recompute! })(ids).logprobs)) as tf.Scalar)
const walk = values.engine === true ? (f: () => tf.Scalar) => tf.variableGrads(f, variables) : (f: () => tf.Scalar) => Backprop.variableGrads(f, variables)
const forwardBackward = (): void => {
  const { value, grads } = walk(loss)
  value.dataSync()
  tf.dispose([value, ...Object.values(grads).filter((g): g is tf.Tensor => g !== null)])
}
const timed = (name: string, f: () => void): void => {
  const start = performance.now()
  const cpu = process.cpuUsage()
  f()
  const used = process.cpuUsage(cpu)
  console.log(`${name}: wall ${((performance.now() - start) / 1000).toFixed(2)} s, cpu ${((used.user + used.system) / 1e6).toFixed(2)} s`)
}
console.log(`${B} x ${T} tokens, recompute ${values.recompute}, ${values.engine ? "tfjs's" : "Backprop's"} backward walk, ${selected.right.name}`)
forwardBackward() // warm-up
for (let i = 0; i < 2; i++) timed('forward', () => tf.tidy(() => void loss().dataSync()))
for (let i = 0; i < 2; i++) timed('forward + backward', forwardBackward)
console.log(`peak resident memory ${(process.resourceUsage().maxRSS / 2 ** 20).toFixed(2)} GiB`)
if (values.kernels === true) {
  const info = await tf.profile(forwardBackward)
  const byName = new Map<string, number>()
  for (const k of info.kernels) byName.set(k.name, (byName.get(k.name) ?? 0) + (typeof k.kernelTimeMs === 'number' ? k.kernelTimeMs : 0))
  for (const [name, ms] of [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${ms.toFixed(0).padStart(7)} ms  ${name}`)
}
ids.dispose()
policy.dispose()
