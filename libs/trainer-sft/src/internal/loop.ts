/**
 * The SFT training loop as a generator that pauses after every step (`Sft.train` runs it to
 * the end, `Sft.trainAsync` yields to the event loop between steps).
 */
import { Rng, type Trajectory } from '@mtrl/core'
import { Optimizer, Schedule } from '@mtrl/optim'
import { Policy } from '@mtrl/policy'
import { epochBatches } from '../Batches.js'
import { evaluate } from '../Loss.js'
import type * as Replicas from '../Replicas.js'
import type { EpochMetrics, Hooks, Options, Result, Snapshot, StepMetrics } from '../Sft.js'
import * as WeightAverage from '../WeightAverage.js'
import { parallelStep, singleStep } from './step.js'

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
 * The training loop as a generator that pauses after every step (see {@link train},
 * {@link trainAsync}). From a snapshot, it replays the data order (same random stream) without
 * training up to the snapshot's step, then goes on.
 */
export function* trainingLoop(
  options: Options,
  policy: Policy.Policy,
  samples: ReadonlyArray<Trajectory.Trajectory>,
  hooks: Hooks,
  replicas: Replicas.Pool | undefined,
  from: Snapshot | undefined
): Generator<Pause, Result, boolean | undefined> {
  const rng = Rng.make(options.seed)
  const shuffled = Rng.shuffle(rng)(samples)
  const heldCount = Math.min(shuffled.length - 1, Math.round(shuffled.length * options.heldOutFraction))
  const heldOut = heldCount > 0 ? shuffled.slice(0, heldCount) : []
  const trainSet = heldCount > 0 ? shuffled.slice(heldCount) : shuffled
  const stepsPerEpoch = Math.ceil(trainSet.length / options.batchSize)
  const totalSteps = stepsPerEpoch * options.epochs
  if (from !== undefined && from.steps.length > totalSteps)
    throw new Error(`Sft: the snapshot is at step ${from.steps.length}, past the end of a run of ${totalSteps} steps (another recipe or data?)`)
  const schedule = Schedule.learningRate({
    peak: options.learningRate,
    warmupSteps: options.warmupSteps,
    totalSteps,
    minRatio: options.minLrRatio
  })
  const variables = Policy.trainableVariables(policy)
  const optimizer = Optimizer.make(variables, { beta1: options.adamBeta1, beta2: options.adamBeta2 })
  if (from !== undefined) Optimizer.restore(optimizer, from.optimizer)
  const average = options.emaDecay > 0 ? WeightAverage.make(variables, from?.average) : undefined
  const initialHeldOut = from === undefined ? evaluate(policy)(heldOut) : from.initialHeldOut
  const steps: StepMetrics[] = [...(from?.steps ?? [])]
  const epochs: EpochMetrics[] = [...(from?.epochs ?? [])]
  const snapshot = (): Snapshot => ({
    optimizer: Optimizer.state(optimizer),
    average: average === undefined ? undefined : WeightAverage.toHost(average),
    initialHeldOut,
    steps: [...steps],
    epochs: [...epochs]
  })
  try {
    let taken = 0
    let ended = false
    for (let epoch = 0; epoch < options.epochs && !ended; epoch++) {
      let sum = 0
      let count = 0
      for (const part of epochBatches(options, rng)(trainSet)) {
        if (taken < steps.length) {
          // replayed: taken before the snapshot
          sum += steps[taken]!['loss/sft']
          count++
          taken++
          continue
        }
        const lr = schedule(steps.length)
        const result =
          replicas !== undefined && replicas.size > 0 && part.length > 1
            ? parallelStep(options, policy, optimizer, replicas, part, lr)
            : singleStep(options, policy, optimizer, part, lr)
        const actionNll = result.aux?.['action'] ?? result.loss
        sum += actionNll
        count++
        const metrics: StepMetrics = {
          step: steps.length,
          epoch,
          'loss/sft': actionNll,
          'loss/context': result.aux?.['context'] ?? Number.NaN,
          'grad/norm': result.gradNorm,
          'optim/lr': lr
        }
        steps.push(metrics)
        taken++
        if (average !== undefined) {
          WeightAverage.update(average, variables, WeightAverage.emaDecayAt(options.emaDecay, steps.length))
        }
        hooks.onStep?.(metrics, totalSteps)
        if ((yield { step: steps.length, snapshot }) === true) {
          ended = true
          break
        }
      }
      if (epochs.length > epoch) continue // finished before the snapshot
      if (average !== undefined && (ended || epoch === options.epochs - 1)) WeightAverage.apply(average, variables)
      const done: EpochMetrics = { epoch, 'loss/train': sum / Math.max(1, count), 'loss/heldout': evaluate(policy)(heldOut) }
      epochs.push(done)
      hooks.onEpoch?.(done)
    }
  } finally {
    optimizer.dispose()
    average?.dispose()
  }
  return { initialHeldOut, steps, epochs }
}

