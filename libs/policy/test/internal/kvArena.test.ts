import { Rng } from '@mtrl/core'
import { describe, expect, it } from 'vitest'
import { defaultKernel } from '../../src/internal/attendKernel.js'
import { attend } from '../../src/internal/hostKernels.js'
import * as _ from '../../src/internal/kvArena.js'

interface Case {
  readonly slots: number
  readonly H: number
  readonly Hkv: number
  readonly hd: number
  readonly maxLen: number
  /** Each row's slot and position (rows of a slot at consecutive positions, as a prefill makes them). */
  readonly rows: ReadonlyArray<readonly [number, number]>
  /** Spread of the keys: large values make a peaked softmax and exercise exp far from 0. */
  readonly spread: number
}

const kernel = defaultKernel()!

/** Max |wasm - JS| of the attention of `c`'s rows over random keys and values, both kernels on the same cache. */
const maxDifference = (c: Case, seed: number): number => {
  const rng = Rng.make(seed)
  const uniform = (scale: number): number => (2 * rng.next() - 1) * scale
  const arena = _.makeArena(kernel, { layers: 2, heads: c.H, kvHeads: c.Hkv, headDim: c.hd, slots: c.slots, maxLen: c.maxLen })!
  const layer = 1
  const [K, V] = [arena.k[layer]!, arena.v[layer]!]
  K.forEach((_x, i) => (K[i] = uniform(c.spread)))
  V.forEach((_x, i) => (V[i] = uniform(1)))
  const M = c.rows.length
  const width = (c.H + 2 * c.Hkv) * c.hd
  const D = c.H * c.hd
  const P = Float32Array.from({ length: M * width }, () => uniform(1))
  const slotOf = Int32Array.from(c.rows, ([s]) => s)
  const posOf = Int32Array.from(c.rows, ([, p]) => p)
  const want = new Float32Array(M * D)
  const scores = new Float64Array(c.maxLen)
  attend(P, width, K, V, c.maxLen, slotOf, posOf, c.H, c.Hkv, c.hd, D, scores, new Float64Array(c.hd), new Float64Array(c.hd), want)
  const got = new Float32Array(M * D)
  arena.attend(layer, P, width, slotOf, posOf, got)
  arena.dispose()
  return got.reduce((max, g, i) => Math.max(max, Math.abs(g - want[i]!)), 0)
}

/** Rows of `slots` slots, each a run of `n` positions from a different start (decode rows when n is 1). */
const runs = (slots: number, n: number, start: (slot: number) => number): ReadonlyArray<readonly [number, number]> =>
  Array.from({ length: slots }, (_x, s) => Array.from({ length: n }, (_y, i) => [s, start(s) + i] as const)).flat()

describe('kvArena: the WebAssembly kernel against the JavaScript attend', () => {
  const cases: ReadonlyArray<readonly [string, Case]> = [
    ['decode rows, hd 16, positions 0 to 449', { slots: 64, H: 8, Hkv: 8, hd: 16, maxLen: 512, rows: runs(64, 1, (s) => s * 7), spread: 1 }],
    ['prefill runs of 9, GQA 8 / 2, hd 8', { slots: 6, H: 8, Hkv: 2, hd: 8, maxLen: 96, rows: runs(6, 9, (s) => s * 13), spread: 1 }],
    ['prefill runs of 5, GQA 4 / 1, hd 32', { slots: 4, H: 4, Hkv: 1, hd: 32, maxLen: 64, rows: runs(4, 5, (s) => [0, 3, 17, 58][s]!), spread: 1 }],
    ['every position 0 to 63 (all remainders mod 4), hd 4', { slots: 1, H: 2, Hkv: 1, hd: 4, maxLen: 64, rows: runs(1, 64, () => 0), spread: 1 }],
    ['more rows than one call takes (600 rows)', { slots: 3, H: 4, Hkv: 2, hd: 16, maxLen: 256, rows: runs(3, 200, (s) => s * 20), spread: 1 }],
    ['peaked softmax (scores up to ~100)', { slots: 8, H: 4, Hkv: 4, hd: 16, maxLen: 128, rows: runs(8, 3, (s) => s * 15), spread: 12 }]
  ]
  for (const [name, c] of cases)
    it(`${name}: max abs difference < 1e-5`, () => {
      for (const seed of [1, 2, 3]) expect(maxDifference(c, seed)).toBeLessThan(1e-5)
    })

  it('gives no arena where the kernel does not apply (head width not a multiple of 4)', () => {
    expect(_.makeArena(kernel, { layers: 1, heads: 4, kvHeads: 2, headDim: 6, slots: 2, maxLen: 16 })).toBeUndefined()
  })

  it('gives no arena beyond maxBytes (the cache stays on the JavaScript kernel)', () => {
    const slots = Math.ceil(_.maxBytes / (2 * 8 * 512 * 16 * 4))
    expect(_.makeArena(kernel, { layers: 1, heads: 8, kvHeads: 8, headDim: 16, slots, maxLen: 512 })).toBeUndefined()
  })

  it('splits a cache past the limit into groups of layers, each in its own memory: every layer attends as the JavaScript kernel', () => {
    const shape = { layers: 5, heads: 4, kvHeads: 2, headDim: 8, slots: 2, maxLen: 32 }
    // two layers' keys and values (2 x 8 KiB) and the scratch fit under 88,000 bytes, three do not
    const arena = _.makeArena(kernel, shape, 88_000)!
    expect(new Set(arena.k.map((k) => k.buffer)).size).toBe(3)
    expect(arena.k).toHaveLength(5)
    const rng = Rng.make(9)
    const uniform = (): number => 2 * rng.next() - 1
    for (const store of [...arena.k, ...arena.v]) store.forEach((_x, i) => (store[i] = uniform()))
    const rows = runs(2, 3, (s) => s * 11)
    const width = (4 + 2 * 2) * 8
    const D = 4 * 8
    const P = Float32Array.from({ length: rows.length * width }, uniform)
    const slotOf = Int32Array.from(rows, ([s]) => s)
    const posOf = Int32Array.from(rows, ([, p]) => p)
    for (let layer = 0; layer < 5; layer++) {
      const want = new Float32Array(rows.length * D)
      attend(P, width, arena.k[layer]!, arena.v[layer]!, 32, slotOf, posOf, 4, 2, 8, D, new Float64Array(32), new Float64Array(8), new Float64Array(8), want)
      const got = new Float32Array(rows.length * D)
      arena.attend(layer, P, width, slotOf, posOf, got)
      expect(got.reduce((max, g, i) => Math.max(max, Math.abs(g - want[i]!)), 0)).toBeLessThan(1e-5)
    }
    arena.dispose()
    // one layer past the limit: no arena
    expect(_.makeArena(kernel, shape, 70_000)).toBeUndefined()
  })

  it('counts an arena live from make to dispose, and refuses use after dispose', () => {
    const before = _.liveArenas()
    const arena = _.makeArena(kernel, { layers: 1, heads: 2, kvHeads: 1, headDim: 8, slots: 2, maxLen: 16 })!
    expect(_.liveArenas()).toBe(before + 1)
    arena.dispose()
    arena.dispose()
    expect(_.liveArenas()).toBe(before)
    expect(() => arena.attend(0, new Float32Array(32), 32, Int32Array.of(0), Int32Array.of(0), new Float32Array(16))).toThrow(/dispose/)
  })
})
