/**
 * Peak resident memory of a real-size model through loading, one LoRA SFT step and sampling,
 * with the loading and the decoder's weight layout chosen, so that each change to where the
 * memory goes can be measured against the path it replaced (issue 57):
 * - `--load stream` (HuggingFace.load: each variable made as its tensor is read) or `whole`
 *   (every tensor read to the host first, then the variables: the loading before 2026-12-06);
 * - `--weights shared` (the trunk's own variables) or `copy` (the folded second copy: the
 *   sampler before 2026-12-06), or the decoder's default when not given;
 * - `--phases sft,sample` (which run after loading, in that order);
 * - `--recompute`: the SFT step with gradient checkpointing (`Scoring.Options.recompute`).
 * Prints the process's peak resident memory (getrusage maxRSS) after each phase, as JSON lines.
 * LoRA rank 16 on q/k/v/o/gate/up/down; SFT: one step (the first, with its warm-up) of
 * --batch x --seq random tokens; sampling: 16 slots, --prompt tokens each, then --new tokens at
 * batch 1 and batch 16.
 *
 * Run (a folder written by tools/fixtures/real-size.py):
 *   MTRL_BACKEND=tensorflow npx tsx --conditions=@mtrl/source libs/policy/bench/memory.bench.ts DIR --load whole --weights copy --phases sft
 */
import { Backend } from '@mtrl/backend'
import { Rng } from '@mtrl/core'
import * as tf from '@tensorflow/tfjs'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { HuggingFace, Lora, Policy, Safetensors, Sampler, Scoring } from '../src/index.js'
import { loadSafetensors } from '../src/internal/files.js'
import { parameterSpecs } from '../src/internal/layout.js'
import { now } from './timing.js'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    load: { type: 'string', default: 'stream' },
    weights: { type: 'string' },
    phases: { type: 'string', default: 'sft,sample' },
    batch: { type: 'string', default: '1' },
    seq: { type: 'string', default: '256' },
    prompt: { type: 'string', default: '64' },
    new: { type: 'string', default: '16' },
    recompute: { type: 'boolean', default: false }
  }
})
const dir = positionals[0]
if (dir === undefined) throw new Error('usage: memory.bench.ts DIR [--load stream|whole] [--weights copy|shared] [--phases sft,sample]')
if (values.load !== 'stream' && values.load !== 'whole') throw new Error(`--load must be stream or whole, got ${values.load}`)
if (values.weights !== undefined && values.weights !== 'copy' && values.weights !== 'shared')
  throw new Error(`--weights must be copy or shared, got ${values.weights}`)
const weights = values.weights as 'copy' | 'shared' | undefined
const phases = new Set(values.phases!.split(','))
const [batch, seq, prompt, fresh] = [values.batch, values.seq, values.prompt, values.new].map(Number) as [number, number, number, number]

const selected = await Backend.selectFromEnvironment()()
if (selected._tag === 'Left') throw new Error(Backend.message(selected.left))
const peakGiB = (): number => Number((process.resourceUsage().maxRSS / 2 ** 20).toFixed(2))
const emit = (phase: string, start: number, extra: Record<string, unknown> = {}): void =>
  void process.stdout.write(
    `${JSON.stringify({ phase, load: values.load, weights: weights ?? 'default', seconds: Number(((now() - start) / 1000).toFixed(1)), peakGiB: peakGiB(), ...extra })}\n`
  )

const lora = { rank: 16, alpha: 32, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] as const }
const maxLen = Math.max(seq, prompt + fresh + 1)
/** The loading before 2026-12-06: every tensor read to the host, then the variables, which tfjs-node fills from the host arrays at their first use. */
const loadWhole = async (): Promise<Policy.Policy> => {
  const hf = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as unknown
  const read = HuggingFace.configOf(hf)
  if (read._tag === 'Left') throw new Error(read.left)
  const config = { ...read.right, maxLen }
  const file = await loadSafetensors(join(dir, 'model.safetensors'))()
  if (file._tag === 'Left') throw new Error(JSON.stringify(file.left))
  const host = new Map([...file.right.tensors].map(([name, entry]) => [name, { shape: entry.shape, data: Safetensors.toFloat32(entry) }]))
  const base: Record<string, tf.Variable> = {}
  for (const spec of parameterSpecs(config)) {
    const w = host.get(spec.name)!
    base[spec.name] = tf.tidy(() => tf.variable(tf.tensor(w.data, [...w.shape], 'float32'), true, `whole/${spec.name}`))
  }
  const adapters = Lora.makeVariables('whole', config, lora, (name) => base[name]?.shape, 1)
  const variables = { ...base, ...adapters }
  return { _tag: 'Policy', config, tokenizer: undefined, lora, variables, dispose: () => Object.values(variables).forEach((v) => v.dispose()) }
}
let start = now()
const policy =
  values.load === 'whole'
    ? await loadWhole()
    : await (async () => {
        const loaded = await HuggingFace.load(dir, { lora, maxLen })()
        if (loaded._tag === 'Left') throw new Error(JSON.stringify(loaded.left))
        return loaded.right
      })()
emit('load', start, { backend: selected.right.name })

if (phases.has('sft')) {
  start = now()
  const vars = Policy.trainableVariables(policy)
  const rng = Rng.make(0)
  const ids = tf.tensor2d(
    Int32Array.from({ length: batch * seq }, () => rng.int(policy.config.vocab)),
    [batch, seq],
    'int32'
  )
  const optimizer = tf.train.adam(1e-4)
  const options = { entropy: false, recompute: values.recompute! }
  const loss = (): tf.Scalar => tf.tidy(() => tf.neg(tf.mean(Scoring.tokenLogprobs(policy, options)(ids).logprobs)) as tf.Scalar)
  const value = optimizer.minimize(loss, true, vars)
  emit('sft', start, { tokens: batch * seq, recompute: values.recompute, loss: value?.dataSync()[0] })
  tf.dispose([value!, ids])
  optimizer.dispose()
}

if (phases.has('sample')) {
  start = now()
  const session = Sampler.make(policy, { slots: 16, maxLen: prompt + fresh + 1, ...(weights === undefined ? {} : { weights }) })
  const rng = Rng.make(1)
  const V = policy.config.vocab
  const prompts = Array.from({ length: 16 }, () => Int32Array.from({ length: prompt }, () => rng.int(Math.min(V, 300))))
  for (const n of [1, 16]) {
    const slots = Array.from({ length: n }, (_, i) => i)
    slots.forEach((s) => session.reset(s))
    session.append(slots, prompts.slice(0, n))
    session.generate(slots, { maxNewTokens: fresh, temperature: 1, stopTokens: [], rng })
    emit(`sample${n}`, start, { tokens: n * fresh })
    start = now()
  }
  session.dispose()
}
policy.dispose()
