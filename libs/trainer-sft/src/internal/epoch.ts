/**
 * One epoch of the SFT loop: its steps, as a generator that pauses after each one, then its end
 * (metrics, held-out loss, and the weight average applied when the run ends there).
 */
import { epochBatches } from '../Batches.js'
import { evaluate } from '../Loss.js'
import type { EpochMetrics, Snapshot } from '../Sft.js'
import * as WeightAverage from '../WeightAverage.js'
import { snapshot, type Run } from './run.js'
import { takeStep } from './takeStep.js'

/**
 * What the loop yields after every step: the steps taken so far, and how to snapshot them.
 * Resumed with `next(true)`, the loop ends there as if the run were over (the epoch's metrics so
 * far, the weight average applied); with `next()` it goes on.
 */
export interface Pause {
  readonly step: number
  readonly snapshot: () => Snapshot
}

/**
 * How an epoch's steps went: the sum and count of their action-token losses (replayed steps
 * included), the batches gone through since the run began (`taken`), and whether the run was
 * ended at a pause.
 */
export interface EpochSteps {
  readonly sum: number
  readonly count: number
  readonly taken: number
  readonly ended: boolean
}

/**
 * The steps of epoch `epoch`: its batches drawn from `run.rng`; a batch among the first
 * `run.steps.length` of the run (`taken` before this epoch) is replayed (its recorded loss, no
 * training), any other trained on, reported to `onStep`, and followed by a pause.
 */
export function* epochSteps(run: Run, epoch: number, takenBefore: number): Generator<Pause, EpochSteps, boolean | undefined> {
  let sum = 0
  let count = 0
  let taken = takenBefore
  for (const part of epochBatches(run.options, run.rng)(run.trainSet)) {
    if (taken < run.steps.length) {
      // replayed: taken before the snapshot
      sum += run.steps[taken]!['loss/sft']
      count++
      taken++
      continue
    }
    const metrics = takeStep(run, part, epoch)
    sum += metrics['loss/sft']
    count++
    taken++
    run.hooks.onStep?.(metrics, run.totalSteps)
    if ((yield { step: run.steps.length, snapshot: () => snapshot(run) }) === true) return { sum, count, taken, ended: true }
  }
  return { sum, count, taken, ended: false }
}

/**
 * Ends epoch `epoch` (unless it finished before the snapshot the run started from): applies the
 * weight average if the run ends here, records the epoch's metrics with the held-out loss, and
 * reports them to `onEpoch`.
 */
export const endEpoch = (run: Run, epoch: number, steps: EpochSteps): void => {
  if (run.epochs.length > epoch) return // finished before the snapshot
  if (run.average !== undefined && (steps.ended || epoch === run.options.epochs - 1)) WeightAverage.apply(run.average, run.variables)
  const done: EpochMetrics = { epoch, 'loss/train': steps.sum / Math.max(1, steps.count), 'loss/heldout': evaluate(run.policy)(run.heldOut) }
  run.epochs.push(done)
  run.hooks.onEpoch?.(done)
}
