/**
 * REINFORCE++ (Hu 2025, https://arxiv.org/abs/2501.03262): critic-free, discounted token
 * returns normalised across the whole batch, optionally after subtracting a group baseline
 * (OpenRLHF's `reinforce_baseline`). One of the paper's critic-free baselines.
 *
 * Variant: OpenRLHF's `get_cumulative_returns` and batch normalisation, with three choices:
 * the discount skips observation tokens (as the GAE here does; OpenRLHF zeroes their reward
 * and discounts over them); the whitening uses verl's sample variance (OpenRLHF the
 * population variance; the two differ by a factor sqrt(n / (n - 1)) over n action tokens);
 * the group baseline is subtracted from the row's last action token, where OpenRLHF's
 * sequence score sits, so it is discounted like the score.
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'
import { UnitInterval } from './internal/codecs.js'
import { groupsOf } from './internal/groups.js'
import { whitenInPlace } from './internal/whiten.js'
import { assertValid, rowOutcomes, type Estimate, type TokenBatch } from './TokenBatch.js'

/**
 * Which baseline to subtract before the batch normalisation.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Baseline = t.keyof({ none: null, group: null })
/** @category models @since 0.1.0 */
export type Baseline = t.TypeOf<typeof Baseline>

/**
 * - `gamma`: discount per action token, in [0, 1];
 * - `whiten`: normalise the advantages over all action tokens of the batch;
 * - `baseline`: `none` (REINFORCE++) or `group` (REINFORCE++-baseline; needs `groupIds`).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({ gamma: UnitInterval, whiten: t.boolean, baseline: Baseline })
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * OpenRLHF's defaults: gamma 1, whitened, no baseline.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultOptions: Options = { gamma: 1, whiten: true, baseline: 'none' }

/**
 * Over the action tokens `t_1 < ... < t_n` of row i (observation tokens skipped):
 *
 * ```
 * G_{t_j} = r_{t_j} + gamma * G_{t_{j+1}}           G_{t_{n+1}} = 0
 * b_i = mean_g R  (baseline 'group', R = sum_t r over the row, g = the row's group), else 0
 * A_{t_j} = G_{t_j} - gamma^(n - j) * b_i           (b_i sits on the last action token t_n)
 * whiten: A <- (A - mean) / sqrt(var + 1e-8)        mean, sample var over all action tokens
 * returns_{t_j} = G_{t_j}
 * ```
 *
 * Throws on an invalid batch, or when `baseline` is `group` and `groupIds` are missing.
 *
 * @example
 * import { ReinforcePlusPlus } from '@mtrl/advantages'
 * const out = ReinforcePlusPlus.estimate({ gamma: 0.5, whiten: false, baseline: 'none' })({
 *   batch: 1, time: 3,
 *   tokenRewards: Float32Array.of(0, 0, 1),
 *   actionMask: Float32Array.of(1, 0, 1)
 * })
 * // observation skipped: advantages [0.5, 0, 1]
 * @category estimators
 * @since 0.1.0
 */
export const estimate =
  (options: Options) =>
  (input: TokenBatch): Estimate => {
    if (!Options.is(options)) throw new Error(`ReinforcePlusPlus.estimate: invalid options ${JSON.stringify(options)}`)
    assertValid('ReinforcePlusPlus', input)
    const { batch, time, tokenRewards, actionMask } = input
    const { gamma } = options
    const baselines = new Float64Array(batch)
    if (options.baseline === 'group') {
      const outcomes = rowOutcomes(input)
      const { groupOf, sizes, sums } = groupsOf('ReinforcePlusPlus', input, outcomes)
      for (let b = 0; b < batch; b++) baselines[b] = sums[groupOf[b]!]! / sizes[groupOf[b]!]!
    }
    const advantages = new Float32Array(batch * time)
    const returns = new Float32Array(batch * time)
    for (let b = 0; b < batch; b++) {
      const start = b * time
      let g = 0
      let baseline = baselines[b]!
      for (let i = start + time - 1; i >= start; i--) {
        if (actionMask[i] !== 1) continue
        g = tokenRewards[i]! + gamma * g
        returns[i] = g
        advantages[i] = g - baseline
        baseline *= gamma
      }
    }
    if (options.whiten) whitenInPlace(advantages, actionMask)
    return { batch, time, advantages, returns }
  }
