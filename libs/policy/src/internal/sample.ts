/**
 * Drawing one token from a row of logits on the host: temperature, top-k, top-p, with the
 * log-probability under the distribution actually sampled from. Deterministic for an Rng state;
 * ties are broken by the lower id.
 */
import type { Rng } from '@mtrl/core'

export interface Draw {
  readonly token: number
  readonly logprob: number
}

export interface SampleOptions {
  readonly temperature: number
  readonly topK?: number | undefined
  readonly topP?: number | undefined
}

let scratch = new Float64Array(0)
const scratchOf = (n: number): Float64Array => {
  if (scratch.length < n) scratch = new Float64Array(n)
  return scratch
}

const logSumExp = (z: ArrayLike<number>, scale: number, from: number, to: number): { readonly max: number; readonly lse: number } => {
  let max = -Infinity
  for (let i = from; i < to; i++) if (z[i]! * scale > max) max = z[i]! * scale
  let sum = 0
  for (let i = from; i < to; i++) sum += Math.exp(z[i]! * scale - max)
  return { max, lse: max + Math.log(sum) }
}

/**
 * One draw from `logits[from, to)`. `temperature: 0` is greedy and reports the model's
 * log-probability at temperature 1.
 */
export const draw = (logits: Float32Array, from: number, to: number, options: SampleOptions, rng: Rng.Rng): Draw => {
  const V = to - from
  if (options.temperature === 0) {
    let best = from
    for (let i = from + 1; i < to; i++) if (logits[i]! > logits[best]!) best = i
    const { lse } = logSumExp(logits, 1, from, to)
    return { token: best - from, logprob: logits[best]! - lse }
  }
  if (!(options.temperature > 0)) throw new Error(`temperature must be >= 0, got ${options.temperature}`)
  const scale = 1 / options.temperature
  const topK = options.topK !== undefined && options.topK > 0 && options.topK < V ? options.topK : V
  const topP = options.topP !== undefined && options.topP > 0 && options.topP < 1 ? options.topP : 1
  if (topK === V && topP === 1) {
    // one pass of exponentials: probabilities relative to the max, then an inverse-CDF draw
    let max = -Infinity
    for (let i = from; i < to; i++) if (logits[i]! > max) max = logits[i]!
    const weights = scratchOf(V)
    let sum = 0
    for (let i = 0; i < V; i++) sum += weights[i] = Math.exp((logits[from + i]! - max) * scale)
    const u = rng.next() * sum
    let acc = 0
    let pick = -1
    for (let i = 0; i < V; i++) {
      if (weights[i]! > 0) pick = i
      acc += weights[i]!
      if (u < acc) break
    }
    return { token: pick, logprob: (logits[from + pick]! - max) * scale - Math.log(sum) }
  }
  const { lse } = logSumExp(logits, scale, from, to)
  // candidates in order of decreasing probability, ties by lower id
  const order = Array.from({ length: V }, (_, i) => i)
  order.sort((a, b) => logits[from + b]! - logits[from + a]! || a - b)
  let kept = topK
  if (topP < 1) {
    let acc = 0
    for (let r = 0; r < topK; r++) {
      acc += Math.exp(logits[from + order[r]!]! * scale - lse)
      if (acc >= topP) {
        kept = r + 1
        break
      }
    }
  }
  let mass = 0
  for (let r = 0; r < kept; r++) mass += Math.exp(logits[from + order[r]!]! * scale - lse)
  const logMass = Math.log(mass)
  const u = rng.next() * mass
  let acc = 0
  for (let r = 0; r < kept; r++) {
    const i = order[r]!
    const lp = logits[from + i]! * scale - lse
    acc += Math.exp(lp)
    if (u < acc || r === kept - 1) return { token: i, logprob: lp - logMass }
  }
  throw new Error('unreachable: empty candidate set')
}
