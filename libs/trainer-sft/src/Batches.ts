/**
 * The batches of an SFT epoch: the samples shuffled and cut into batches, optionally grouped by
 * length (TRL's `group_by_length`) so a batch pads less.
 *
 * @since 0.1.0
 */
import { Rng, Trajectory } from '@mtrl/core'
import { chunks } from './internal/chunks.js'

/**
 * One epoch's batches: `samples` shuffled with `rng` and cut into batches of `batchSize`; with
 * `groupByLength`, the shuffled order is cut into megabatches of 16 batches, each sorted by
 * length and cut into batches, and the batches are shuffled.
 *
 * @example
 * import { Rng } from '@mtrl/core'
 * import { Batches } from '@mtrl/trainer-sft'
 * declare const demos: ReadonlyArray<import('@mtrl/core').Trajectory.Trajectory>
 * const batches = Batches.epochBatches({ batchSize: 4, groupByLength: true }, Rng.make(0))(demos)
 *
 * @category combinators
 * @since 0.1.0
 */
export const epochBatches =
  (options: { readonly batchSize: number; readonly groupByLength: boolean }, rng: Rng.Rng) =>
  <A extends Trajectory.Trajectory>(samples: ReadonlyArray<A>): A[][] => {
    const shuffled = Rng.shuffle(rng)(samples)
    if (!options.groupByLength) return chunks(shuffled, options.batchSize)
    const batches = chunks(shuffled, options.batchSize * 16).flatMap((mega) =>
      chunks(
        [...mega].sort((a, b) => Trajectory.length(b) - Trajectory.length(a)),
        options.batchSize
      )
    )
    return Rng.shuffle(rng)(batches)
  }
