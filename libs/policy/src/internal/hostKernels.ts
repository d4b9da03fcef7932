/**
 * The host (JavaScript) kernels of decoding: per-row norms, RoPE and cache writes, SwiGLU /
 * GELU, and attention over the cache. Top-level functions with everything in locals and plain
 * indexed loops over typed arrays: the hot loops of sampling.
 */
import type { Activation, ModelConfig } from '../ModelConfig.js'

const GELU_C = Math.sqrt(2 / Math.PI)

/** The normalisation alone, per row (weight and bias are folded into the next product). */
export const normalize = (config: ModelConfig, x: Float32Array, rows: number): Float32Array => {
  const d = config.dModel
  const out = new Float32Array(rows * d)
  for (let r = 0; r < rows; r++) {
    const o = r * d
    let mean = 0
    if (config.norm === 'layernorm') {
      for (let j = 0; j < d; j++) mean += x[o + j]!
      mean /= d
    }
    let ss = 0
    for (let j = 0; j < d; j++) {
      const c = x[o + j]! - mean
      ss += c * c
    }
    const scale = 1 / Math.sqrt(ss / d + config.normEps)
    for (let j = 0; j < d; j++) out[o + j] = (x[o + j]! - mean) * scale
  }
  return out
}

/**
 * RMSNorm in place over each group of `weight.length` values of `x` (rows of a projection, or
 * each head of one): `x / sqrt(mean(x^2) + eps) * weight`.
 */
export const normGroups = (x: Float32Array, from: number, to: number, weight: Float32Array, eps: number): void => {
  const n = weight.length
  for (let o = from; o < to; o += n) {
    let ss = 0
    for (let j = 0; j < n; j++) ss += x[o + j]! * x[o + j]!
    const scale = 1 / Math.sqrt(ss / n + eps)
    for (let j = 0; j < n; j++) x[o + j] = x[o + j]! * scale * weight[j]!
  }
}

/**
 * RoPE on q and k (`x * cos + rotate_half(x) * sin`) and the cache writes of k and v; the
 * rotated q is written back over q in `P`.
 */
export const placeQkv = (
  P: Float32Array,
  width: number,
  qkWidth: number,
  table: { readonly cos: Float32Array; readonly sin: Float32Array; readonly rotaryDim: number } | undefined,
  K: Float32Array,
  V: Float32Array,
  cap: number,
  slotOf: Int32Array,
  posOf: Int32Array,
  H: number,
  Hkv: number,
  hd: number,
  scratch: Float32Array
): void => {
  const rd = table?.rotaryDim ?? hd
  const half = rd / 2
  for (let m = 0; m < slotOf.length; m++) {
    const slot = slotOf[m]!
    const pos = posOf[m]!
    const o = m * width
    for (let h = 0; h < H + Hkv; h++) {
      const src = o + h * hd
      const target = h < H ? P : K
      const dst = h < H ? src : ((slot * Hkv + (h - H)) * cap + pos) * hd
      if (table === undefined) {
        for (let i = 0; i < hd; i++) target[dst + i] = P[src + i]!
        continue
      }
      // x * cos + rotate_half(x) * sin, rotate_half(x) = [-x2, x1] on the first rd dimensions
      // (two loops without a branch; x1 * cos - x2 * sin is x1 * cos + (-x2) * sin bit for bit)
      const t = pos * hd
      const { cos, sin } = table
      for (let i = 0; i < half; i++) scratch[i] = P[src + i]! * cos[t + i]! - P[src + i + half]! * sin[t + i]!
      for (let i = half; i < rd; i++) scratch[i] = P[src + i]! * cos[t + i]! + P[src + i - half]! * sin[t + i]!
      for (let i = rd; i < hd; i++) scratch[i] = P[src + i]!
      target.set(scratch.subarray(0, hd), dst)
    }
    for (let g = 0; g < Hkv; g++) V.set(P.subarray(o + qkWidth + g * hd, o + qkWidth + (g + 1) * hd), ((slot * Hkv + g) * cap + pos) * hd)
  }
}

const geluTanh = (u: number): number => 0.5 * u * (1 + Math.tanh(GELU_C * (u + 0.044715 * u * u * u)))

/** SwiGLU or GeGLU (`U` = [gate | up] per row) or GELU (tanh approximation) on the host. */
export const activate = (activation: Activation, U: Float32Array, M: number, F: number): Float32Array => {
  const act = new Float32Array(M * F)
  if (activation === 'swiglu') {
    for (let m = 0; m < M; m++)
      for (let j = 0; j < F; j++) {
        const g = U[m * 2 * F + j]!
        act[m * F + j] = (g / (1 + Math.exp(-g))) * U[m * 2 * F + F + j]!
      }
  } else if (activation === 'geglu') {
    for (let m = 0; m < M; m++) for (let j = 0; j < F; j++) act[m * F + j] = geluTanh(U[m * 2 * F + j]!) * U[m * 2 * F + F + j]!
  } else
    for (let i = 0; i < M * F; i++) {
      const u = U[i]!
      act[i] = 0.5 * u * (1 + Math.tanh(GELU_C * (u + 0.044715 * u * u * u)))
    }
  return act
}

/** What a layer's attention adds to plain causal attention: a sliding window, soft-capped scores. */
export interface AttendExtras {
  /** Keys visible to a query: its last `window` positions (Infinity: all). */
  readonly window: number
  /** `c` of `c tanh(s / c)` on the scores (0: none). */
  readonly softcap: number
}

/**
 * Attention of each row over its slot's cached positions up to its own (within the window). A
 * top-level function with everything in locals: the hot loop of decoding.
 */
export const attend = (
  P: Float32Array,
  width: number,
  K: Float32Array,
  V: Float32Array,
  cap: number,
  slotOf: Int32Array,
  posOf: Int32Array,
  H: number,
  Hkv: number,
  hd: number,
  D: number,
  scores: Float64Array,
  qv: Float64Array,
  acc: Float64Array,
  attended: Float32Array,
  extras: AttendExtras = { window: Infinity, softcap: 0 }
): void => {
  const G = H / Hkv
  const softcap = extras.softcap
  const M = slotOf.length
  for (let m = 0; m < M; m++) {
    const slot = slotOf[m]!
    const pos = posOf[m]!
    for (let h = 0; h < H; h++) {
      const base = (slot * Hkv + ((h / G) | 0)) * cap * hd
      const j0 = Math.max(0, pos - extras.window + 1)
      const qo = m * width + h * hd
      for (let i = 0; i < hd; i++) qv[i] = P[qo + i]!
      let max = -Infinity
      const hd4 = hd - (hd % 4)
      for (let j = j0, ko = base + j0 * hd; j <= pos; j++, ko += hd) {
        let d0 = 0
        let d1 = 0
        let d2 = 0
        let d3 = 0
        let i = 0
        for (; i < hd4; i += 4) {
          d0 += qv[i]! * K[ko + i]!
          d1 += qv[i + 1]! * K[ko + i + 1]!
          d2 += qv[i + 2]! * K[ko + i + 2]!
          d3 += qv[i + 3]! * K[ko + i + 3]!
        }
        for (; i < hd; i++) d0 += qv[i]! * K[ko + i]!
        const dot = softcap > 0 ? softcap * Math.tanh((d0 + d1 + d2 + d3) / softcap) : d0 + d1 + d2 + d3
        scores[j] = dot
        if (dot > max) max = dot
      }
      let sum = 0
      for (let j = j0; j <= pos; j++) {
        const e = Math.exp(scores[j]! - max)
        scores[j] = e
        sum += e
      }
      acc.fill(0)
      for (let j = j0, vo = base + j0 * hd; j <= pos; j++, vo += hd) {
        const p = scores[j]!
        let i = 0
        for (; i < hd4; i += 4) {
          acc[i]! += p * V[vo + i]!
          acc[i + 1]! += p * V[vo + i + 1]!
          acc[i + 2]! += p * V[vo + i + 2]!
          acc[i + 3]! += p * V[vo + i + 3]!
        }
        for (; i < hd; i++) acc[i]! += p * V[vo + i]!
      }
      const out = m * D + h * hd
      const inv = 1 / sum
      for (let i = 0; i < hd; i++) attended[out + i] = acc[i]! * inv
    }
  }
}
