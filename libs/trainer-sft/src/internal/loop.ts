/**
 * The SFT training loop as a generator that pauses after every step (`Sft.train` runs it to
 * the end, `Sft.trainAsync` yields to the event loop between steps): a run set up
 * (./run.ts), then its epochs (./epoch.ts), each its steps and its end.
 */
import type { Trajectory } from '@mtrl/core'
import type { Policy } from '@mtrl/policy'
import type * as Replicas from '../Replicas.js'
import type { Hooks, Options, Result, Snapshot } from '../Sft.js'
import { endEpoch, epochSteps, type Pause } from './epoch.js'
import { makeRun } from './run.js'

export type { Pause } from './epoch.js'

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
  const run = makeRun(options, policy, samples, hooks, replicas, from)
  try {
    let taken = 0
    let ended = false
    for (let epoch = 0; epoch < options.epochs && !ended; epoch++) {
      const steps = yield* epochSteps(run, epoch, taken)
      taken = steps.taken
      ended = steps.ended
      endEpoch(run, epoch, steps)
    }
  } finally {
    run.dispose()
  }
  return { initialHeldOut: run.initialHeldOut, steps: run.steps, epochs: run.epochs }
}
