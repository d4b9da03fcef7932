/**
 * Supervised fine-tuning on expert trajectories: maximise the log-likelihood of the action
 * tokens given everything before them; prompt and observation tokens are context only. The
 * paper's SFT prior before RL (Wang & Ammanabrolu 2025, §6: about 60 in-domain demonstrations,
 * one epoch at lr 1e-6 with 1.5B models).
 *
 * ```
 * loss = - sum_{b,t} m[b,t] log p(ids[b,t] | ids[b,<t]) / sum_{b,t} m[b,t]     (m: action mask)
 *        + w * (the same mean over context tokens: prompt and observations, not padding)
 * ```

 * With `contextWeight` w = 0 (the default) only actions are learned, as in TRL's
 * `assistant_only_loss=True`; w = 1 is plain language modelling of the whole episode
 * (TRL's default). A small from-scratch model learns to copy object names from the goal much
 * sooner when it also models the observations (docs/decisions/0005).
 *
 * Epochs over shuffled minibatches, Adam with linear warm-up + cosine decay, global-norm gradient
 * clipping, and a held-out split whose loss is measured before training and after each epoch.
 *
 * @since 0.1.0
 */
import { Numbers, type Trajectory } from '@mtrl/core'
import type { Optimizer } from '@mtrl/optim'
import type { Policy } from '@mtrl/policy'
import * as t from 'io-ts'
import { trainingLoop } from './internal/loop.js'
import type * as Replicas from './Replicas.js'

/**
 * - `epochs`, `batchSize`: passes over the training split and samples per step;
 * - `learningRate`, `warmupSteps`, `minLrRatio`: the learning-rate schedule (`@mtrl/optim`'s
 *   `Schedule`; total steps derived);
 * - `maxGradNorm`: global-norm clip (`Infinity`: none);
 * - `heldOutFraction`: share of samples kept out of training to measure generalisation (0: none);
 * - `contextWeight`: weight of the auxiliary next-token loss on context (non-action) tokens;
 * - `groupByLength`: batch samples of similar length together (less padding; TRL's
 *   `group_by_length`): each epoch's shuffled order is cut into megabatches of 16 batches, each
 *   sorted by length and cut into batches, and the batches are shuffled;
 * - `adamBeta1`, `adamBeta2`: Adam's moment decay rates (TRL's `adam_beta1`, `adam_beta2`);
 * - `emaDecay`: keep an exponential moving average of the weights and return it (0: off). The
 *   decay at step n is `min(emaDecay, (1 + n) / (10 + n))` (TensorFlow's `num_updates` warm-up),
 *   so the average forgets the initial weights; the last epoch's held-out loss is the average's;
 * - `recompute`: gradient checkpointing (`Scoring.Options.recompute` of @mtrl/policy): each
 *   layer keeps only its input for the backward pass and is recomputed there, for one more
 *   forward pass; the same gradients, less memory (real-size models, long batches);
 * - `seed`: shuffling and the split.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({
  epochs: Numbers.PositiveInt,
  batchSize: Numbers.PositiveInt,
  learningRate: Numbers.Positive,
  warmupSteps: Numbers.NonNegativeInt,
  minLrRatio: Numbers.Fraction,
  maxGradNorm: Numbers.Positive,
  heldOutFraction: Numbers.Fraction,
  contextWeight: Numbers.NonNegative,
  groupByLength: t.boolean,
  adamBeta1: Numbers.Fraction,
  adamBeta2: Numbers.Fraction,
  emaDecay: Numbers.Fraction,
  recompute: t.boolean,
  seed: Numbers.NonNegativeInt
})
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

const { seed: _seed, ...settingsProps } = Options.props
/**
 * What a recipe sets of SFT: any of {@link Options} but the seed (the pipeline derives it), all
 * optional over {@link defaultOptions}.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Settings = t.partial(settingsProps)
/** @category models @since 0.1.0 */
export type Settings = t.TypeOf<typeof Settings>

/**
 * Three epochs of batch 16 at a peak learning rate of 1e-3 after 10 warm-up steps, decaying to
 * a tenth; 5% held out; actions only; no weight average. Sized for the small models mtrl trains
 * from scratch (a pretrained model wants a far smaller rate, e.g. 1e-5).
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultOptions: Options = {
  epochs: 3,
  batchSize: 16,
  learningRate: 1e-3,
  warmupSteps: 10,
  minLrRatio: 0.1,
  maxGradNorm: 1,
  heldOutFraction: 0.05,
  contextWeight: 0,
  groupByLength: false,
  adamBeta1: 0.9,
  adamBeta2: 0.999,
  emaDecay: 0,
  recompute: false,
  seed: 0
}

/**
 * What a recipe sets of how an SFT run is carried out: data-parallel `replicas` (this thread
 * included; see {@link Replicas}) and a snapshot every `checkpointEvery` steps (0: only when
 * stopped; see {@link Checkpoints}).
 *
 * @category codecs
 * @since 0.1.0
 */
export const RunSettings = t.partial({ replicas: Numbers.PositiveInt, checkpointEvery: Numbers.NonNegativeInt })
/** @category models @since 0.1.0 */
export type RunSettings = t.TypeOf<typeof RunSettings>

/**
 * One thread; a snapshot every 200 steps.
 *
 * @category constructors
 * @since 0.1.0
 */
export const defaultRunSettings: Required<RunSettings> = { replicas: 1, checkpointEvery: 200 }

/**
 * Per-step metrics (`loss/sft` is the action-token NLL of the minibatch before the update,
 * `loss/context` the context-token NLL, NaN when `contextWeight` is 0).
 *
 * @category models
 * @since 0.1.0
 */
export interface StepMetrics {
  readonly step: number
  readonly epoch: number
  readonly 'loss/sft': number
  readonly 'loss/context': number
  readonly 'grad/norm': number
  readonly 'optim/lr': number
}

/**
 * Per-epoch metrics (`loss/heldout` is NaN without a held-out split).
 *
 * @category models
 * @since 0.1.0
 */
export interface EpochMetrics {
  readonly epoch: number
  readonly 'loss/train': number
  readonly 'loss/heldout': number
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Result {
  /** Held-out loss before the first step (NaN without a held-out split). */
  readonly initialHeldOut: number
  readonly steps: ReadonlyArray<StepMetrics>
  readonly epochs: ReadonlyArray<EpochMetrics>
}

/**
 * Progress callbacks (for progress bars and logs; training does not depend on them).
 * `onStep` gets the step's metrics and the total number of steps.
 *
 * @category models
 * @since 0.1.0
 */
export interface Hooks {
  readonly onStep?: (metrics: StepMetrics, totalSteps: number) => void
  readonly onEpoch?: (metrics: EpochMetrics) => void
}

/**
 * Where an SFT run stands after `steps.length` steps: everything but the policy's weights needed
 * to continue it exactly (Adam's state, the weight average in trainable-variable order, and the
 * metrics so far). Save the policy alongside; give both back to {@link trainAsync} (`from`) to
 * resume. Data, so callers choose the file format.
 *
 * @category models
 * @since 0.1.0
 */
export interface Snapshot {
  readonly optimizer: Optimizer.State
  /** The weight average (`emaDecay` > 0), one array per trainable variable; else undefined. */
  readonly average: ReadonlyArray<Float32Array> | undefined
  readonly initialHeldOut: number
  readonly steps: ReadonlyArray<StepMetrics>
  readonly epochs: ReadonlyArray<EpochMetrics>
}

/**
 * Resuming and checkpointing for {@link trainAsync}: `from`, a snapshot to continue from (the
 * policy already holds the weights saved with it); `save`, called with a snapshot every
 * `every` steps (0: never) and when stopped, before training goes on.
 *
 * @category models
 * @since 0.1.0
 */
export interface Checkpoints {
  readonly from?: Snapshot
  readonly every?: number
  readonly save?: (snapshot: Snapshot) => Promise<void>
}

/**
 * Fine-tunes `policy` in place (its trainable variables, LoRA-aware) on `samples` and returns
 * the metrics. Samples need not come from rollouts; any trajectory with action segments works.
 * With `replicas` (see {@link Replicas}), every batch is split across them (data parallel).
 * Runs to the end without yielding to the event loop; {@link trainAsync} is the same loop for
 * applications that must stay responsive (signals, progress).
 *
 * @example
 * import { Sft } from '@mtrl/trainer-sft'
 * declare const policy: import('@mtrl/policy').Policy.Policy
 * declare const demos: ReadonlyArray<import('@mtrl/core').Trajectory.Trajectory>
 * const result = Sft.train({ ...Sft.defaultOptions, epochs: 3 })(policy)(demos)
 *
 * @category constructors
 * @since 0.1.0
 */
export const train =
  (options: Options) =>
  (policy: Policy.Policy) =>
  (samples: ReadonlyArray<Trajectory.Trajectory>, hooks: Hooks = {}, replicas?: Replicas.Pool): Result => {
    const loop = trainingLoop(options, policy, samples, hooks, replicas, undefined)
    for (;;) {
      const next = loop.next()
      if (next.done === true) return next.value
    }
  }

/**
 * {@link train}, yielding to the event loop after every step (so signal handlers and timers
 * run), and stopping early when `stop()` turns true: then it saves a snapshot (with
 * `checkpoints.save`) and resolves to `undefined`; the policy holds the weights of the last step
 * taken (the weight average is not applied). With `checkpoints.from`, it continues a snapshotted
 * run: the same steps, data order and learning rates as if it had never stopped.
 *
 * `enough(steps)`, awaited after every step (after `stop`), ends the run there when it resolves
 * to true, as if its last epoch ended at that step: the result holds the steps taken and that
 * epoch's metrics so far, and the weight average is applied. For a stop on a held-out check
 * (e.g. success in the environment every so many steps); the learning-rate schedule stays the
 * one of the whole run.
 *
 * @example
 * import { Sft } from '@mtrl/trainer-sft'
 * declare const policy: import('@mtrl/policy').Policy.Policy
 * declare const demos: ReadonlyArray<import('@mtrl/core').Trajectory.Trajectory>
 * declare const saveSomewhere: (snapshot: Sft.Snapshot) => Promise<void>
 * const result = await Sft.trainAsync(Sft.defaultOptions)(policy)(demos, {}, undefined, () => false, { every: 200, save: saveSomewhere })
 *
 * @category constructors
 * @since 0.1.0
 */
export const trainAsync =
  (options: Options) =>
  (policy: Policy.Policy) =>
  async (
    samples: ReadonlyArray<Trajectory.Trajectory>,
    hooks: Hooks = {},
    replicas?: Replicas.Pool,
    stop: () => boolean = () => false,
    checkpoints: Checkpoints = {},
    enough: (steps: number) => Promise<boolean> = () => Promise.resolve(false)
  ): Promise<Result | undefined> => {
    const loop = trainingLoop(options, policy, samples, hooks, replicas, checkpoints.from)
    const every = checkpoints.every ?? 0
    try {
      let end = false
      for (;;) {
        const next = loop.next(end)
        if (next.done === true) return next.value
        await new Promise<void>((resolve) => setImmediate(resolve))
        const stopping = stop()
        if (checkpoints.save !== undefined && (stopping || (every > 0 && next.value.step % every === 0))) await checkpoints.save(next.value.snapshot())
        if (stopping) return undefined
        end = await enough(next.value.step)
      }
    } finally {
      loop.return(undefined as unknown as Result)
    }
  }
