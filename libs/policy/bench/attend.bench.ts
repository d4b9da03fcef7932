/**
 * The attention of decoding, WebAssembly SIMD kernel against the JavaScript one, at the default
 * recipe's shape (d 128, 2 layers, 8 heads of 16, context 512, 64 slots):
 * (a) `attend` alone on single decode rows and prefill runs at positions up to 450;
 * (b) a rollout's decoding: 64 slots, a 100-token prompt, then 8 turns of 10 sampled tokens
 *     (one row per slot per call) and a 40-token observation, through the decoder's forward pass
 *     with the cache in the kernel's memory or in plain arrays (weight products on the backend).
 * The two are alternated, best of several runs: the machine may be shared.
 *
 * Run: MTRL_BACKEND=wasm npm run bench:attend -w @mtrl/policy
 * (the whole `Rollout.run` at this shape: libs/rollout-queue's profile scripts).
 */
import { Backend } from '@mtrl/backend'
import { Rng } from '@mtrl/core'
import { loadavg } from 'node:os'
import { ModelConfig, Policy } from '../src/index.js'
import { defaultKernel } from '../src/internal/attendKernel.js'
import { makeCurrentWeights } from '../src/internal/currentWeights.js'
import { forward, type Item } from '../src/internal/decode.js'
import { attend } from '../src/internal/hostKernels.js'
import { makeArena } from '../src/internal/kvArena.js'
import { disposeCache, makeCache } from '../src/internal/kvCache.js'
import { bestOf } from './timing.js'

const [H, hd, slots, maxLen] = [8, 16, 64, 512]
const kernel = defaultKernel()
if (kernel === undefined) throw new Error('this engine has no WebAssembly SIMD')

/** Rows of a call: each slot's run of `n` positions starting at `start(slot)`. */
const rowsOf = (n: number, start: (slot: number) => number): { readonly slotOf: Int32Array; readonly posOf: Int32Array } => {
  const pairs = Array.from({ length: slots }, (_, s) => Array.from({ length: n }, (_y, i) => [s, start(s) + i] as const)).flat()
  return { slotOf: Int32Array.from(pairs, ([s]) => s), posOf: Int32Array.from(pairs, ([, p]) => p) }
}

/** (a): JS and wasm attend on the same cache and rows; ms per call and GFLOP/s (q.k and p.v: 4 hd per position and head). */
const attendAlone = (name: string, rows: { readonly slotOf: Int32Array; readonly posOf: Int32Array }): void => {
  const arena = makeArena(kernel, { layers: 1, heads: H, kvHeads: H, headDim: hd, slots, maxLen })!
  const rng = Rng.make(0)
  for (const store of [arena.k[0]!, arena.v[0]!]) store.forEach((_, i) => (store[i] = rng.next() - 0.5))
  const M = rows.slotOf.length
  const width = 3 * H * hd
  const P = Float32Array.from({ length: M * width }, () => rng.next() - 0.5)
  const out = new Float32Array(M * H * hd)
  const [scores, qv, acc] = [new Float64Array(maxLen), new Float64Array(hd), new Float64Array(hd)]
  const js = (): void => attend(P, width, arena.k[0]!, arena.v[0]!, maxLen, rows.slotOf, rows.posOf, H, H, hd, H * hd, scores, qv, acc, out)
  const wasm = (): void => arena.attend(0, P, width, rows.slotOf, rows.posOf, out)
  const flops = rows.posOf.reduce((f, p) => f + 4 * hd * H * (p + 1), 0)
  const best = { js: Infinity, wasm: Infinity }
  for (let r = 0; r < 5; r++) {
    best.js = Math.min(best.js, bestOf(3, js))
    best.wasm = Math.min(best.wasm, bestOf(3, wasm))
  }
  const line = (t: number): string => `${(t * 1000).toFixed(2).padStart(8)} ms ${(flops / t / 1e9).toFixed(2).padStart(6)} GFLOP/s`
  console.log(`  ${name.padEnd(44)} js ${line(best.js)}   wasm ${line(best.wasm)}   x${(best.js / best.wasm).toFixed(2)}`)
  arena.dispose()
}

/** (b): one rollout's decoding on a fresh cache of each kind; seconds. */
const rolloutDecoding = (policy: Policy.Policy, useKernel: boolean): number => {
  const config = policy.config
  const weights = makeCurrentWeights(policy)
  const prep = weights.prepared()
  const cache = makeCache(config, slots, maxLen, useKernel ? kernel : undefined)
  const rng = Rng.make(1)
  const tokens = (n: number): Int32Array => Int32Array.from({ length: n }, () => rng.int(config.vocab))
  const feed = (n: number): void => {
    const items: Item[] = Array.from({ length: slots }, (_, slot) => ({ slot, tokens: tokens(n) }))
    forward(prep, cache, items)
  }
  const t0 = performance.now()
  feed(100)
  for (let turn = 0; turn < 8; turn++) {
    for (let i = 0; i < 10; i++) feed(1)
    feed(40)
  }
  const seconds = (performance.now() - t0) / 1000
  disposeCache(cache)
  weights.dispose()
  return seconds
}

const main = async (): Promise<void> => {
  const selected = await Backend.selectFromEnvironment()()
  if (selected._tag === 'Left') throw new Error(Backend.message(selected.left))
  const load = (): string =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')
  console.log(`backend: ${selected.right.name}; load average ${load()}`)
  console.log(`(a) attend alone: ${slots} slots, ${H} heads of ${hd}, cache of ${maxLen} (best of 15)`)
  attendAlone(
    'decode rows at positions 0..450',
    rowsOf(1, (s) => Math.round((450 * s) / (slots - 1)))
  )
  attendAlone(
    'decode rows at position 450',
    rowsOf(1, () => 450)
  )
  attendAlone(
    'prefill: 100-token prompts at 0..99',
    rowsOf(100, () => 0)
  )
  attendAlone(
    'prefill: 40-token observations at 410..449',
    rowsOf(40, () => 410)
  )
  const policy = Policy.make(ModelConfig.make({ vocab: 1024, dModel: 128, layers: 2, heads: H, maxLen, prevTokenEmbedding: true, canonSpan: 3 }), 0)
  const times = { js: [] as number[], wasm: [] as number[] }
  for (let r = 0; r < 4; r++)
    for (const useKernel of r % 2 === 0 ? [false, true] : [true, false]) times[useKernel ? 'wasm' : 'js'].push(rolloutDecoding(policy, useKernel))
  const best = { js: Math.min(...times.js), wasm: Math.min(...times.wasm) }
  console.log(`(b) a rollout's decoding (64 slots, 100-token prompt, 8 turns of 10 sampled + 40 observed tokens; best of 4)`)
  console.log(`  js ${best.js.toFixed(2)} s   wasm ${best.wasm.toFixed(2)} s   x${(best.js / best.wasm).toFixed(2)}`)
  console.log(`load average ${load()}`)
  policy.dispose()
}

void main()
