/**
 * REINFORCE leave-one-out (Kool et al. 2019, "Buy 4 REINFORCE samples, get a baseline for
 * free!", https://openreview.net/forum?id=r1lgTGL5DE; Ahmadian et al. 2024,
 * https://arxiv.org/abs/2402.14740): each sample's baseline is the mean outcome of the *other*
 * samples of its group, an unbiased baseline. The paper's critic-free comparison point to PPO.
 *
 * Variant: verl / SkyRL / OpenRLHF / TRL agree on the formula; a group of one gets 0 (as verl).
 * TRL's KL-in-reward and sequence-level loss belong to the trainer, not here.
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'
import { groupsOf } from './internal/groups.js'
import { assertValid, broadcastRows, rowOutcomes, type Estimate, type TokenBatch } from './TokenBatch.js'

/**
 * RLOO has no options (an empty record, so that every estimator has the same surface).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({})
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * `{}`.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultOptions: Options = {}

/**
 * For row i in group g of size n:
 *
 * ```
 * R_i = sum_t tokenRewards[i, t]
 * A_i = R_i - (1 / (n - 1)) sum_{j in g, j != i} R_j  =  n / (n - 1) * (R_i - mean_g)     (A_i = 0 when n = 1)
 * advantages[i, t] = A_i * actionMask[i, t]      returns[i, t] = R_i * actionMask[i, t]
 * ```
 *
 * Requires `groupIds [batch]`. Throws on an invalid batch.
 *
 * @example
 * import { Rloo } from '@mtrl/advantages'
 * const out = Rloo.estimate({})({
 *   batch: 3, time: 1,
 *   tokenRewards: Float32Array.of(1, 0, 0),
 *   actionMask: Float32Array.of(1, 1, 1),
 *   groupIds: ['a', 'a', 'a']
 * })
 * // advantages [1 - 0, 0 - 0.5, 0 - 0.5] = [1, -0.5, -0.5]
 * @category estimators
 * @since 0.1.0
 */
export const estimate =
  (options: Options) =>
  (input: TokenBatch): Estimate => {
    if (!Options.is(options)) throw new Error(`Rloo.estimate: invalid options ${JSON.stringify(options)}`)
    assertValid('Rloo', input)
    const outcomes = rowOutcomes(input)
    const { groupOf, sizes, sums } = groupsOf('Rloo', input, outcomes)
    const perRow = new Float64Array(input.batch)
    for (let b = 0; b < input.batch; b++) {
      const g = groupOf[b]!
      const n = sizes[g]!
      if (n > 1) perRow[b] = outcomes[b]! - (sums[g]! - outcomes[b]!) / (n - 1)
    }
    return {
      batch: input.batch,
      time: input.time,
      advantages: broadcastRows(perRow, input.actionMask, input.time),
      returns: broadcastRows(outcomes, input.actionMask, input.time)
    }
  }
