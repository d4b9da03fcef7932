/**
 * Off-policy correction of the sampler/trainer mismatch, and its diagnostics.
 *
 * The tokens of an iteration were sampled by one distribution (the KV-cache sampler; a queued
 * worker, maybe on another backend or an older policy version) and are trained against another:
 * the trainer's full forward pass of the same weights, `pi_old`. Numerics, backends and versions
 * make the two differ, and PPO's ratio `pi / pi_old` alone does not see it. The importance weight
 * of a token is `r = pi_old(token) / pi_sampler(token)`; the policy-gradient term of each token is
 * multiplied by a weight made from it (never the KL or entropy terms; the weights carry no
 * gradient), as verl's rollout importance sampling and TRL's `vllm_importance_sampling_correction`:
 *
 * - `tis` (truncated IS): `min(r, cap)`;
 * - `mis` (masked IS): `r` where `floor <= r <= cap`, else 0 (the token, or the whole sequence,
 *   leaves the policy gradient).
 *
 * `level` says what `r` is: `token` (each token its own), `sequence` (the product over the
 * row's sampled action tokens, the same for all of them), `geometric` (the geometric mean over
 * them: the per-token average of the sequence's log-ratio). Tokens the sampler did not sample
 * (exploration moves, whose log-probs are the trainer's own) weigh 1 and enter no statistic.
 *
 * The diagnostics ({@link Mismatch}) are logged every iteration the trainer scored the batch.
 *
 * @since 0.5.0
 */
import { Numbers } from '@mtrl/core'
import * as t from 'io-ts'

/** @category codecs @since 0.5.0 */
export const Mode = t.keyof({ off: null, tis: null, mis: null })
/** @category models @since 0.5.0 */
export type Mode = t.TypeOf<typeof Mode>

/** @category codecs @since 0.5.0 */
export const Level = t.keyof({ token: null, sequence: null, geometric: null })
/** @category models @since 0.5.0 */
export type Level = t.TypeOf<typeof Level>

/**
 * `mode`, `level`, the upper bound `cap` (> 1; TRL's and verl's default 2) and, for `mis`, the
 * lower bound `floor` (in [0, 1); default 0).
 *
 * @category codecs
 * @since 0.5.0
 */
export const Settings = t.type({
  mode: Mode,
  level: Level,
  cap: Numbers.refine('a number > 1', (n) => Number.isFinite(n) && n > 1),
  floor: Numbers.refine('a number in [0, 1)', (n) => Number.isFinite(n) && n >= 0 && n < 1)
})
/** @category models @since 0.5.0 */
export type Settings = t.TypeOf<typeof Settings>

/** @category constants @since 0.5.0 */
export const off: Settings = { mode: 'off', level: 'token', cap: 2, floor: 0 }

/**
 * An iteration's token arrays, row-major `[rows, time]`: `sampled` is 1 on the action tokens the
 * sampler drew (0 on prompts, observations, padding and explored moves).
 *
 * @category models
 * @since 0.5.0
 */
export interface Input {
  readonly rows: number
  readonly time: number
  readonly sampled: Float32Array
  readonly trainerLogprobs: Float32Array
  readonly samplerLogprobs: Float32Array
}

/**
 * How far the sampler was from the trainer, over the sampled tokens: the mean of
 * `|log pi_old - log pi_sampler|`, the KL from the sampler to the trainer (k3 estimate, mean of
 * `r - 1 - log r`), the largest token ratio `r`, and the share of tokens whose weight the
 * correction changed (truncated or masked; 0 when off). NaN without sampled tokens.
 *
 * @category models
 * @since 0.5.0
 */
export interface Mismatch {
  readonly meanAbsLogRatio: number
  readonly kl: number
  readonly maxRatio: number
  readonly correctedFraction: number
}

/**
 * The per-token weights (1 where nothing is corrected) and the diagnostics.
 *
 * @category models
 * @since 0.5.0
 */
export interface Correction {
  readonly weights: Float32Array
  readonly mismatch: Mismatch
}

/** The weight of a ratio under a mode (`off`: the ratio is not used: 1). */
const weightOf = (settings: Settings, ratio: number): number => {
  switch (settings.mode) {
    case 'off':
      return 1
    case 'tis':
      return Math.min(ratio, settings.cap)
    case 'mis':
      return ratio >= settings.floor && ratio <= settings.cap ? ratio : 0
  }
}

/** Per row: the log-ratio its tokens are weighted by at `sequence` or `geometric` level. */
const rowLogRatios = (level: Level, input: Input): Float64Array => {
  const out = new Float64Array(input.rows)
  for (let b = 0; b < input.rows; b++) {
    let sum = 0
    let n = 0
    for (let i = b * input.time; i < (b + 1) * input.time; i++) {
      if (input.sampled[i] !== 1) continue
      sum += input.trainerLogprobs[i]! - input.samplerLogprobs[i]!
      n++
    }
    out[b] = level === 'geometric' ? (n === 0 ? 0 : sum / n) : sum
  }
  return out
}

/**
 * The correction of an iteration's tokens (see the module comment).
 *
 * @example
 * import { ImportanceSampling } from '@mtrl/trainer-rl'
 * const { weights } = ImportanceSampling.correct({ mode: 'tis', level: 'token', cap: 2, floor: 0 })({
 *   rows: 1, time: 2, sampled: Float32Array.of(1, 1),
 *   trainerLogprobs: Float32Array.of(Math.log(0.9), Math.log(0.3)), samplerLogprobs: Float32Array.of(Math.log(0.3), Math.log(0.3))
 * })
 * // weights: [2 (3 truncated), 1]
 *
 * @category constructors
 * @since 0.5.0
 */
export const correct =
  (settings: Settings) =>
  (input: Input): Correction => {
    const weights = new Float32Array(input.rows * input.time).fill(1)
    const rows = settings.level === 'token' ? undefined : rowLogRatios(settings.level, input)
    let n = 0
    let abs = 0
    let kl = 0
    let max = Number.NaN
    let corrected = 0
    for (let i = 0; i < weights.length; i++) {
      if (input.sampled[i] !== 1) continue
      const logRatio = input.trainerLogprobs[i]! - input.samplerLogprobs[i]!
      const ratio = Math.exp(logRatio)
      n++
      abs += Math.abs(logRatio)
      kl += ratio - 1 - logRatio
      max = Number.isNaN(max) ? ratio : Math.max(max, ratio)
      const weighted = rows === undefined ? ratio : Math.exp(rows[Math.floor(i / input.time)]!)
      const w = weightOf(settings, weighted)
      weights[i] = w
      if (settings.mode !== 'off' && w !== weighted) corrected++
    }
    const mean = (x: number): number => (n === 0 ? Number.NaN : x / n)
    return {
      weights,
      mismatch: { meanAbsLogRatio: mean(abs), kl: mean(kl), maxRatio: max, correctedFraction: mean(corrected) }
    }
  }
