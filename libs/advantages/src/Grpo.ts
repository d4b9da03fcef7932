/**
 * GRPO's group-relative outcome advantage (Shao et al. 2024, DeepSeekMath,
 * https://arxiv.org/abs/2402.03300) and, with `normalizeByStd: false`, Dr. GRPO's
 * (Liu et al. 2025, "Understanding R1-Zero-Like Training", https://arxiv.org/abs/2503.20783).
 * Critic-free: the baseline is the mean outcome of the other samples of the same task. The
 * paper uses it for SWE-Gym, where a critic is too costly.
 *
 * Variant: verl's `compute_grpo_outcome_advantage` (unbiased **sample** std, n - 1; epsilon
 * 1e-6 added to the std), except that a group of one gets advantage 0 (verl uses mean 0, std 1,
 * which hands the raw reward back as the advantage; a lone sample has no baseline, so no signal).
 * TRL (epsilon 1e-4) and OpenRLHF (epsilon 1e-9) also use the sample std.
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'
import { Positive } from './internal/codecs.js'
import { groupsOf } from './internal/groups.js'
import { assertValid, broadcastRows, rowOutcomes, type Estimate, type TokenBatch } from './TokenBatch.js'

/**
 * - `normalizeByStd`: divide by the group's std (GRPO) or not (Dr. GRPO);
 * - `epsilon`: added to the std, > 0.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({ normalizeByStd: t.boolean, epsilon: Positive })
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * verl's defaults: normalised by std, epsilon 1e-6.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultOptions: Options = { normalizeByStd: true, epsilon: 1e-6 }

/**
 * For row i in group g of size n (rows with the same `groupIds` entry):
 *
 * ```
 * R_i = sum_t tokenRewards[i, t]
 * mean_g = (1/n) sum_{j in g} R_j        std_g = sqrt( sum_{j in g} (R_j - mean_g)^2 / (n - 1) )
 * A_i = (R_i - mean_g) / (std_g + epsilon)     (normalizeByStd)
 * A_i = R_i - mean_g                           (Dr. GRPO)
 * A_i = 0 when n = 1
 * advantages[i, t] = A_i * actionMask[i, t]      returns[i, t] = R_i * actionMask[i, t]
 * ```
 *
 * `returns` carries the outcome (the Monte-Carlo return with gamma = 1) for a critic trained
 * alongside; GRPO itself does not use it. Requires `groupIds [batch]`. Throws on an invalid batch.
 *
 * @example
 * import { Grpo } from '@mtrl/advantages'
 * const out = Grpo.estimate({ normalizeByStd: false, epsilon: 1e-6 })({
 *   batch: 2, time: 1,
 *   tokenRewards: Float32Array.of(1, 0),
 *   actionMask: Float32Array.of(1, 1),
 *   groupIds: ['a', 'a']
 * })
 * // mean 0.5 -> advantages [0.5, -0.5]
 * @category estimators
 * @since 0.1.0
 */
export const estimate =
  (options: Options) =>
  (input: TokenBatch): Estimate => {
    if (!Options.is(options)) throw new Error(`Grpo.estimate: invalid options ${JSON.stringify(options)}`)
    assertValid('Grpo', input)
    const outcomes = rowOutcomes(input)
    const { groupOf, sizes, sums } = groupsOf('Grpo', input, outcomes)
    const squares = new Float64Array(sizes.length)
    for (let b = 0; b < input.batch; b++) {
      const g = groupOf[b]!
      const d = outcomes[b]! - sums[g]! / sizes[g]!
      squares[g]! += d * d
    }
    const perRow = new Float64Array(input.batch)
    for (let b = 0; b < input.batch; b++) {
      const g = groupOf[b]!
      const n = sizes[g]!
      if (n === 1) continue
      const centred = outcomes[b]! - sums[g]! / n
      perRow[b] = options.normalizeByStd ? centred / (Math.sqrt(squares[g]! / (n - 1)) + options.epsilon) : centred
    }
    return {
      batch: input.batch,
      time: input.time,
      advantages: broadcastRows(perRow, input.actionMask, input.time),
      returns: broadcastRows(outcomes, input.actionMask, input.time)
    }
  }
