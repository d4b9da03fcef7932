/**
 * Where the time of `mtrl logprobs --model DIR` goes on a real-size model, stage by stage, on
 * the active backend (MTRL_BACKEND, default auto): reading and decoding the safetensors, making
 * the variables, the trunk's forward pass, the head's logits and the vocabulary-wide
 * log-softmax, and the greedy continuation (decode-layout weights, prefill, each new token).
 * Prints seconds per stage, wall and CPU (all threads: the figure that a busy shared machine
 * disturbs least), and the resident memory.
 *
 * Run: npm run profile:logprobs -w @mtrl/policy -- DIR [TOKENS] [GREEDY] [HEAD_ROWS]
 * (HEAD_ROWS: also the peak memory of the head and log-softmax over that many rows, plain
 * against chunked)
 * (DIR: a Hugging Face folder, e.g. one written by tools/fixtures/real-size.py)
 */
import { Backend } from '@mtrl/backend'
import { Rng } from '@mtrl/core'
import * as tf from '@tensorflow/tfjs'
import { join } from 'node:path'
import { HuggingFace, Policy, Safetensors, Sampler, Scoring } from '../src/index.js'
import { chunkedLogprobs } from '../src/internal/chunkedHead.js'
import { linear, pickLogSoftmax } from '../src/internal/ops.js'
import { trunk } from '../src/internal/transformer.js'
import { now } from './timing.js'

const [dir, tokensArg, greedyArg, longArg] = process.argv.slice(2)
if (dir === undefined) throw new Error('usage: logprobs.profile.ts DIR [TOKENS] [GREEDY]')
const T = Number(tokensArg ?? 87)
const greedy = Number(greedyArg ?? 12)

const selected = await Backend.selectFromEnvironment()()
if (selected._tag === 'Left') throw new Error(Backend.message(selected.left))
const rss = (): string => `${(process.memoryUsage().rss / 2 ** 30).toFixed(2)} GiB`
let peak = 0
const watch = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50)
const stage = async <A>(name: string, f: () => A | Promise<A>): Promise<A> => {
  const start = now()
  const cpu = process.cpuUsage()
  const out = await f()
  const used = process.cpuUsage(cpu)
  const wall = ((now() - start) / 1000).toFixed(2).padStart(8)
  const cpuS = ((used.user + used.system) / 1e6).toFixed(2).padStart(8)
  process.stdout.write(`${name.padEnd(60)} ${wall} s wall ${cpuS} s cpu   rss ${rss()}\n`)
  return out
}

process.stdout.write(`backend ${selected.right.name} (${selected.right.threads} threads), ${T} tokens, ${greedy} greedy\n`)
await stage('safetensors read + decode + to float32 (alone)', async () => {
  const { readFile } = await import('node:fs/promises')
  const bytes = new Uint8Array(await readFile(join(dir, 'model.safetensors')))
  const decoded = Safetensors.decode(bytes)
  if (decoded._tag === 'Left') throw new Error(decoded.left)
  let n = 0
  for (const entry of decoded.right.tensors.values()) n += Safetensors.toFloat32(entry).length
  return n
})
const loaded = await stage('HuggingFace.load (all of loading)', () => HuggingFace.load(dir)())
if (loaded._tag === 'Left') throw new Error(JSON.stringify(loaded.left))
const policy = loaded.right
const V = policy.config.vocab
/** The most tensor memory alive at once while `f` runs (tf.profile's peakBytes), in GiB. */
const peakTensors = async (f: () => void): Promise<string> => `${((await tf.profile(f)).peakBytes / 2 ** 30).toFixed(2)} GiB`
async function headMemory(): Promise<void> {
  const long = Number(longArg ?? 0)
  if (long === 0) return
  // the head and log-softmax alone on [long, d] hidden states: plain ([long, vocab] logits) against chunked
  const h = tf.randomNormal([long, policy.config.dModel]) as tf.Tensor2D
  const targets = tf.tensor1d(
    Array.from({ length: long }, (_, i) => (i * 7919) % V),
    'int32'
  )
  const w = policy.variables['model.embed_tokens.weight'] as unknown as tf.Tensor2D
  const plain = await peakTensors(() => tf.tidy(() => void pickLogSoftmax(linear(h, w), targets).dataSync()))
  const chunked = await peakTensors(() => tf.tidy(() => void chunkedLogprobs(h, w, targets, { temperature: 1, softcap: undefined }).dataSync()))
  process.stdout.write(`head + log-softmax of ${long} rows, peak tensor memory: plain ${plain}, chunked ${chunked}\n`)
  h.dispose()
  targets.dispose()
}

const ids = Array.from({ length: T }, (_, i) => (i * 7919 + 13) % V)
if (T === 0) {
  // only the head's memory (TOKENS 0)
  await headMemory()
  process.exit(0)
}
const input = tf.tensor2d([ids], [1, T], 'int32')
const hidden = await stage('trunk forward [1, T]', () =>
  tf.tidy(() => {
    const h = tf.keep(trunk(policy.config, Policy.weightOf(policy), input))
    h.dataSync()
    return h
  })
)
await stage('head logits [T, vocab]', () =>
  tf.tidy(() => void tf.matMul(tf.reshape(hidden, [T, -1]), policy.variables['model.embed_tokens.weight']!, false, true).dataSync())
)
await stage('Scoring.tokenLogprobs (trunk + head + log-softmax)', () =>
  tf.tidy(() => void Scoring.tokenLogprobs(policy, { entropy: false })(input).logprobs.dataSync())
)
const session = await stage(`Sampler.make (maxLen ${policy.config.maxLen})`, () =>
  Sampler.make(policy, { slots: 1, maxLen: Math.min(policy.config.maxLen, T + greedy) })
)
await stage(`prefill ${T} tokens (decode weights prepared on first use)`, () => session.append([0], [Int32Array.from(ids)]))
await stage(`greedy ${greedy} tokens`, () => session.generate([0], { maxNewTokens: greedy, temperature: 0, stopTokens: [], rng: Rng.make(0) }))
session.dispose()
hidden.dispose()
input.dispose()

await headMemory()
policy.dispose()
clearInterval(watch)
process.stdout.write(`peak rss ${(peak / 2 ** 30).toFixed(2)} GiB\n`)
