/**
 * An SFT stage driven to its end with mid-stage checkpoints: `Sft.trainAsync` with its
 * snapshots written by `Checkpointing.save` into one folder every `every` steps and on a stop
 * request; a snapshot that cannot be written stops the stage at once and is the error. What
 * trainer-rl's `Driver.run` is for RL; resume with `Checkpointing.load` and `from`.
 *
 * @since 0.1.0
 */
import type { Trajectory } from '@mtrl/core'
import type { Policy } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as Checkpointing from './Checkpointing.js'
import type * as Replicas from './Replicas.js'
import * as Sft from './Sft.js'

/**
 * How a stage ended: trained to the end (its metrics), or stopped on request after `steps`
 * steps with a checkpoint written.
 *
 * @category models
 * @since 0.1.0
 */
export type Outcome = { readonly _tag: 'Finished'; readonly result: Sft.Result } | { readonly _tag: 'Stopped'; readonly steps: number }

/**
 * - `dir`: the folder of the stage's checkpoint (one, replaced each time);
 * - `every`: a checkpoint every this many steps (0: only when stopped);
 * - `from`: the snapshot to continue from (the policy holds the weights saved with it);
 * - `stop`: polled after each step; when true, a checkpoint is written and the stage stops;
 * - `enough`: awaited after each step; when true, the stage ends there as trained (see
 *   `Sft.trainAsync`), e.g. once a held-out check passes;
 * - `hooks`, `replicas`: as `Sft.trainAsync`'s.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly dir: string
  readonly every: number
  readonly from?: Sft.Snapshot
  readonly stop?: () => boolean
  readonly enough?: (steps: number) => Promise<boolean>
  readonly hooks?: Sft.Hooks
  readonly replicas?: Replicas.Pool
}

/**
 * Fine-tunes `policy` on `samples` with `sft` options (see `Sft.trainAsync`), checkpointing as
 * `options` say.
 *
 * @example
 * import { Driver, Sft } from '@mtrl/trainer-sft'
 * declare const policy: import('@mtrl/policy').Policy.Policy
 * declare const demos: ReadonlyArray<import('@mtrl/core').Trajectory.Trajectory>
 * const outcome = await Driver.run(Sft.defaultOptions, { dir: 'checkpoints/sft', every: 200 })(policy)(demos)()
 *
 * @category constructors
 * @since 0.1.0
 */
export const run =
  (sft: Sft.Options, options: Options) =>
  (policy: Policy.Policy) =>
  (samples: ReadonlyArray<Trajectory.Trajectory>): TE.TaskEither<Checkpointing.CheckpointError, Outcome> =>
  async () => {
    let unsaved: Checkpointing.CheckpointError | undefined
    let taken = options.from?.steps.length ?? 0
    const save = async (snapshot: Sft.Snapshot): Promise<void> => {
      const saved = await Checkpointing.save(options.dir)(policy, snapshot)()
      if (E.isLeft(saved)) unsaved = saved.left
    }
    const onStep = (m: Sft.StepMetrics, steps: number): void => {
      taken = m.step + 1
      options.hooks?.onStep?.(m, steps)
    }
    const stop = (): boolean => unsaved !== undefined || options.stop?.() === true
    const checkpoints = { ...(options.from === undefined ? {} : { from: options.from }), every: options.every, save }
    const result = await Sft.trainAsync(sft)(policy)(samples, { ...options.hooks, onStep }, options.replicas, stop, checkpoints, options.enough)
    if (unsaved !== undefined) return E.left(unsaved)
    return E.right(result === undefined ? { _tag: 'Stopped', steps: taken } : { _tag: 'Finished', result })
  }
