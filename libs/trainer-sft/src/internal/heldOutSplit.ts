/**
 * The held-out split of an SFT run: the samples shuffled once, the first share kept out of
 * training to measure generalisation, the rest trained on.
 */
import { Rng, type Trajectory } from '@mtrl/core'

/** The samples kept out of training (maybe none) and the ones trained on. */
export interface HeldOutSplit {
  readonly heldOut: ReadonlyArray<Trajectory.Trajectory>
  readonly trainSet: ReadonlyArray<Trajectory.Trajectory>
}

/**
 * `samples` shuffled with `rng` (the run's first draws), then cut: `round(n * heldOutFraction)`
 * of them held out, at most n - 1 so that one is left to train on.
 */
export const heldOutSplit = (heldOutFraction: number, rng: Rng.Rng, samples: ReadonlyArray<Trajectory.Trajectory>): HeldOutSplit => {
  const shuffled = Rng.shuffle(rng)(samples)
  const heldCount = Math.min(shuffled.length - 1, Math.round(shuffled.length * heldOutFraction))
  const heldOut = heldCount > 0 ? shuffled.slice(0, heldCount) : []
  const trainSet = heldCount > 0 ? shuffled.slice(heldCount) : shuffled
  return { heldOut, trainSet }
}
