/**
 * Rotary position embeddings per layer (Su et al., 2021, https://arxiv.org/abs/2104.09864) in
 * Hugging Face's convention: the inverse frequencies of `rope_type` default, `linear`, `llama3`
 * and `yarn` (as `transformers.modeling_rope_utils` computes them), the rotated share of a head
 * (`partial_rotary_factor`), a local base for sliding layers (Gemma 3) and layers without
 * positions (NoPE). Tables are [maxLen, headDim] rows of cos and sin, 1 and 0 past the rotated
 * dimensions, cached per spec.
 */
import { headDim, isSliding, type ModelConfig, type RopeScaling } from '../ModelConfig.js'

/** What one layer's rotation depends on. */
export interface RopeSpec {
  readonly theta: number
  readonly scaling: RopeScaling | undefined
  readonly headDim: number
  /** Dimensions rotated (the first ones of each head), even. */
  readonly rotaryDim: number
}

/** Layer `i`'s rotation, or undefined when it has no positions (learned positions, a NoPE layer). */
export const layerRope = (config: ModelConfig, i: number): RopeSpec | undefined => {
  if (config.positional !== 'rope' || config.ropeLayers?.[i] === false) return undefined
  const hd = headDim(config)
  const rotaryDim = Math.round(hd * (config.ropeFraction ?? 1))
  if (config.localRopeTheta !== undefined && isSliding(config, i)) return { theta: config.localRopeTheta, scaling: undefined, headDim: hd, rotaryDim }
  return { theta: config.ropeTheta, scaling: config.rope, headDim: hd, rotaryDim }
}

/** The yarn blend's [low, high] dimensions (`find_correction_range`). */
const yarnRange = (s: Extract<RopeScaling, { type: 'yarn' }>, dim: number, base: number): readonly [number, number] => {
  const at = (rotations: number): number => (dim * Math.log(s.originalMaxPositions / (rotations * 2 * Math.PI))) / (2 * Math.log(base))
  let low = at(s.betaFast)
  let high = at(s.betaSlow)
  if (s.truncate) {
    low = Math.floor(low)
    high = Math.ceil(high)
  }
  return [Math.max(low, 0), Math.min(high, dim - 1)]
}

/** The inverse frequencies ([rotaryDim / 2]) and the factor on cos and sin. */
export const inverseFrequencies = (spec: RopeSpec): { readonly invFreq: Float32Array; readonly attentionFactor: number } => {
  const dim = spec.rotaryDim
  const half = dim / 2
  const base = new Float32Array(half)
  for (let j = 0; j < half; j++) base[j] = 1 / Math.pow(spec.theta, (2 * j) / dim)
  const s = spec.scaling
  if (s === undefined) return { invFreq: base, attentionFactor: 1 }
  switch (s.type) {
    case 'linear':
      return { invFreq: base.map((f) => f / s.factor), attentionFactor: 1 }
    case 'llama3': {
      const lowWavelen = s.originalMaxPositions / s.lowFreqFactor
      const highWavelen = s.originalMaxPositions / s.highFreqFactor
      const invFreq = base.map((f) => {
        const wavelen = (2 * Math.PI) / f
        if (wavelen < highWavelen) return f
        if (wavelen > lowWavelen) return f / s.factor
        const smooth = (s.originalMaxPositions / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor)
        return (1 - smooth) * (f / s.factor) + smooth * f
      })
      return { invFreq, attentionFactor: 1 }
    }
    case 'yarn': {
      const [low, high] = yarnRange(s, dim, spec.theta)
      const span = low === high ? 0.001 : high - low
      const invFreq = base.map((f, j) => {
        const extrapolation = 1 - Math.min(1, Math.max(0, (j - low) / span))
        return (f / s.factor) * (1 - extrapolation) + f * extrapolation
      })
      return { invFreq, attentionFactor: s.attentionFactor }
    }
  }
}

/** cos and sin rows [maxLen, headDim] of a layer's rotation. */
export interface RopeTable {
  readonly cos: Float32Array
  readonly sin: Float32Array
  readonly rotaryDim: number
}

const tables = new Map<string, RopeTable>()

/** The table of `spec` over `maxLen` positions (cached). */
export const tableOf = (spec: RopeSpec, maxLen: number): RopeTable => {
  const key = JSON.stringify([spec, maxLen])
  const hit = tables.get(key)
  if (hit !== undefined) return hit
  const { invFreq, attentionFactor } = inverseFrequencies(spec)
  const hd = spec.headDim
  const half = spec.rotaryDim / 2
  const cos = new Float32Array(maxLen * hd).fill(1)
  const sin = new Float32Array(maxLen * hd)
  for (let p = 0; p < maxLen; p++)
    for (let i = 0; i < spec.rotaryDim; i++) {
      const angle = Math.fround(p * invFreq[i % half]!)
      cos[p * hd + i] = Math.cos(angle) * attentionFactor
      sin[p * hd + i] = Math.sin(angle) * attentionFactor
    }
  const table = { cos, sin, rotaryDim: spec.rotaryDim }
  tables.set(key, table)
  return table
}
