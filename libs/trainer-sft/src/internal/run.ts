/**
 * Where an SFT run stands while it trains: its data, schedule, optimizer, weight average and
 * metrics so far, started fresh or from a snapshot. A stateful resource: {@link makeRun},
 * {@link snapshot}, `dispose`.
 */
import { Rng, type Trajectory } from '@mtrl/core'
import { Optimizer, Schedule } from '@mtrl/optim'
import { Policy } from '@mtrl/policy'
import type * as tf from '@tensorflow/tfjs'
import { evaluate } from '../Loss.js'
import type * as Replicas from '../Replicas.js'
import type { EpochMetrics, Hooks, Options, Snapshot, StepMetrics } from '../Sft.js'
import * as WeightAverage from '../WeightAverage.js'
import { heldOutSplit } from './heldOutSplit.js'

/**
 * A run's settings and state. `steps` and `epochs` grow as it trains; `rng` draws each epoch's
 * batches after the split's shuffle.
 */
export interface Run {
  readonly options: Options
  readonly policy: Policy.Policy
  readonly hooks: Hooks
  readonly replicas: Replicas.Pool | undefined
  readonly rng: Rng.Rng
  readonly heldOut: ReadonlyArray<Trajectory.Trajectory>
  readonly trainSet: ReadonlyArray<Trajectory.Trajectory>
  readonly totalSteps: number
  readonly schedule: (step: number) => number
  readonly variables: ReadonlyArray<tf.Variable>
  readonly optimizer: Optimizer.Optimizer
  readonly average: WeightAverage.WeightAverage | undefined
  /** Held-out loss before the first step (NaN without a held-out split). */
  readonly initialHeldOut: number
  readonly steps: StepMetrics[]
  readonly epochs: EpochMetrics[]
  /** Disposes the optimizer, then the weight average. */
  readonly dispose: () => void
}

/** Throws when `from` is past the end of a run of `totalSteps` steps (another recipe or data). */
const checkSnapshotFits = (from: Snapshot | undefined, totalSteps: number): void => {
  if (from !== undefined && from.steps.length > totalSteps)
    throw new Error(`Sft: the snapshot is at step ${from.steps.length}, past the end of a run of ${totalSteps} steps (another recipe or data?)`)
}

/**
 * A run of `options` on `samples`: the split and the schedule (total steps derived), Adam over the
 * policy's trainable variables and the weight average (`emaDecay` > 0), restored from `from` if
 * given, and the held-out loss before training (measured now, or `from`'s).
 */
export const makeRun = (
  options: Options,
  policy: Policy.Policy,
  samples: ReadonlyArray<Trajectory.Trajectory>,
  hooks: Hooks,
  replicas: Replicas.Pool | undefined,
  from: Snapshot | undefined
): Run => {
  const rng = Rng.make(options.seed)
  const { heldOut, trainSet } = heldOutSplit(options.heldOutFraction, rng, samples)
  const stepsPerEpoch = Math.ceil(trainSet.length / options.batchSize)
  const totalSteps = stepsPerEpoch * options.epochs
  checkSnapshotFits(from, totalSteps)
  const schedule = Schedule.learningRate({ peak: options.learningRate, warmupSteps: options.warmupSteps, totalSteps, minRatio: options.minLrRatio })
  const variables = Policy.trainableVariables(policy)
  const optimizer = Optimizer.make(variables, { beta1: options.adamBeta1, beta2: options.adamBeta2 })
  if (from !== undefined) Optimizer.restore(optimizer, from.optimizer)
  const average = options.emaDecay > 0 ? WeightAverage.make(variables, from?.average) : undefined
  const initialHeldOut = from === undefined ? evaluate(policy)(heldOut) : from.initialHeldOut
  return {
    options,
    policy,
    hooks,
    replicas,
    rng,
    heldOut,
    trainSet,
    totalSteps,
    schedule,
    variables,
    optimizer,
    average,
    initialHeldOut,
    steps: [...(from?.steps ?? [])],
    epochs: [...(from?.epochs ?? [])],
    dispose: () => {
      optimizer.dispose()
      average?.dispose()
    }
  }
}

/** Where `run` stands now, as data (see `Sft.Snapshot`): copies, not views, of its state. */
export const snapshot = (run: Run): Snapshot => ({
  optimizer: Optimizer.state(run.optimizer),
  average: run.average === undefined ? undefined : WeightAverage.toHost(run.average),
  initialHeldOut: run.initialHeldOut,
  steps: [...run.steps],
  epochs: [...run.epochs]
})
