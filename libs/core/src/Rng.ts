/**
 * A seeded, splittable pseudo-random number generator: xoshiro128** seeded through
 * SplitMix32. Pure 32-bit integer arithmetic (`Math.imul`, shifts), so the same seed gives the
 * same stream on every platform and JavaScript engine.
 *
 * `split` derives an independent child stream (the child is seeded from the parent's output
 * through SplitMix32's mixer, as in Steele et al., "Fast splittable pseudorandom number
 * generators", 2014). The state is a plain record, so a checkpoint can save it and a resumed
 * run continues the very same stream.
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'

/**
 * The four 32-bit words of xoshiro128** state.
 *
 * @category codecs
 * @since 0.1.0
 */
export const RngState = t.tuple([t.number, t.number, t.number, t.number])
/** @category models @since 0.1.0 */
export type RngState = t.TypeOf<typeof RngState>

/**
 * A stateful generator (a record of closures over its state).
 *
 * @category models
 * @since 0.1.0
 */
export interface Rng {
  /** Next uniform 32-bit unsigned integer. */
  readonly nextUint32: () => number
  /** Next uniform float in [0, 1) with 32 bits of randomness. */
  readonly next: () => number
  /** Uniform integer in [0, n). Unbiased (rejection sampling). */
  readonly int: (n: number) => number
  /** A child generator independent of this one; advances this one by two draws. */
  readonly split: () => Rng
  /** A copy of the current state, for checkpoints. */
  readonly state: () => RngState
}

const mix32 = (z0: number): number => {
  let z = z0 | 0
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b)
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35)
  return (z ^ (z >>> 16)) >>> 0
}

const GOLDEN = 0x9e3779b9

const seedState = (seed: number, salt: number): RngState => {
  let x = (Math.trunc(seed) ^ Math.imul(salt, 0x632be5ab)) | 0
  // fold in the high bits of seeds beyond 32 bits
  const high = Math.floor(Math.abs(seed) / 4294967296) | 0
  x = (x ^ mix32(high + GOLDEN)) | 0
  const words: number[] = []
  for (let i = 0; i < 4; i++) {
    x = (x + GOLDEN) | 0
    words.push(mix32(x))
  }
  if (!words.some((w) => w !== 0)) words[0] = 1
  return [words[0]!, words[1]!, words[2]!, words[3]!]
}

const rotl = (x: number, k: number): number => (x << k) | (x >>> (32 - k))

/**
 * A generator continuing from a saved state.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromState = (saved: RngState): Rng => {
  let s0 = saved[0] | 0
  let s1 = saved[1] | 0
  let s2 = saved[2] | 0
  let s3 = saved[3] | 0
  const nextUint32 = (): number => {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9)
    const tt = s1 << 9
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= tt
    s3 = rotl(s3, 11)
    return result >>> 0
  }
  const next = (): number => nextUint32() / 4294967296
  const int = (n: number): number => {
    if (!Number.isInteger(n) || n <= 0 || n > 4294967296) throw new RangeError(`Rng.int: n must be an integer in [1, 2^32], got ${n}`)
    const limit = 4294967296 - (4294967296 % n)
    for (;;) {
      const x = nextUint32()
      if (x < limit) return x % n
    }
  }
  const split = (): Rng => {
    const a = nextUint32()
    const b = nextUint32()
    return fromState(seedState(a, b ^ 0x5bd1e995))
  }
  const state = (): RngState => [s0 >>> 0, s1 >>> 0, s2 >>> 0, s3 >>> 0]
  return { nextUint32, next, int, split, state }
}

/**
 * A generator for a seed (any finite number; integers are the usual choice).
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * const rng = Rng.make(42)
 * const die = rng.int(6) + 1
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (seed: number): Rng => {
  if (!Number.isFinite(seed)) throw new RangeError(`Rng.make: seed must be finite, got ${seed}`)
  return fromState(seedState(seed, 0))
}

/**
 * Shuffles a copy of `items` (Fisher-Yates).
 *
 * @category combinators
 * @since 0.1.0
 */
export const shuffle =
  (rng: Rng) =>
  <A>(items: ReadonlyArray<A>): A[] => {
    const out = items.slice()
    for (let i = out.length - 1; i > 0; i--) {
      const j = rng.int(i + 1)
      const tmp = out[i]!
      out[i] = out[j]!
      out[j] = tmp
    }
    return out
  }

/**
 * One element chosen uniformly; throws on an empty array (a programmer error).
 *
 * @category combinators
 * @since 0.1.0
 */
export const pick =
  (rng: Rng) =>
  <A>(items: ReadonlyArray<A>): A => {
    if (items.length === 0) throw new RangeError('Rng.pick: empty array')
    return items[rng.int(items.length)]!
  }

/**
 * A standard normal draw (Box-Muller).
 *
 * @category combinators
 * @since 0.1.0
 */
export const normal = (rng: Rng): number => {
  let u = 0
  while (u === 0) u = rng.next()
  const v = rng.next()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
}
