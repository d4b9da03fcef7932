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
import { Rng, Trajectory } from '@mtrl/core'
import { Policy, Scoring } from '@mtrl/policy'
import { Optimizer, Schedule } from '@mtrl/optim'
import { Batch } from '@mtrl/rollout'
import * as tf from '@tensorflow/tfjs'
import * as t from 'io-ts'
import { weightedNll, type Shard } from './internal/weightedNll.js'
import * as Replicas from './Replicas.js'

/**
 * - `epochs`, `batchSize`: passes over the training split and samples per step;
 * - `learningRate`, `warmupSteps`, `minLrRatio`: the {@link Schedule} (total steps derived);
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
 * - `seed`: shuffling and the split.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Options = t.type({
  epochs: t.number,
  batchSize: t.number,
  learningRate: t.number,
  warmupSteps: t.number,
  minLrRatio: t.number,
  maxGradNorm: t.number,
  heldOutFraction: t.number,
  contextWeight: t.number,
  groupByLength: t.boolean,
  adamBeta1: t.number,
  adamBeta2: t.number,
  emaDecay: t.number,
  seed: t.number
})
/** @category models @since 0.1.0 */
export type Options = t.TypeOf<typeof Options>

/**
 * @category constructors
 * @since 0.1.0
 */
export const defaultOptions: Options = {
  epochs: 1,
  batchSize: 8,
  learningRate: 1e-4,
  warmupSteps: 0,
  minLrRatio: 0.1,
  maxGradNorm: 1,
  heldOutFraction: 0.1,
  contextWeight: 0,
  groupByLength: false,
  adamBeta1: 0.9,
  adamBeta2: 0.999,
  emaDecay: 0,
  seed: 0
}

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
 * The SFT loss from per-token log-probs: mean negative log-likelihood over action tokens.
 * Runs in `tf.tidy`; differentiable; the caller owns the scalar.
 *
 * @param logprobs `[batch, time]` (`Scoring.tokenLogprobs` output)
 * @param actionMask `[batch, time]` float32, 1 on action tokens
 * @category losses
 * @since 0.1.0
 */
export const actionLoss = (logprobs: tf.Tensor, actionMask: tf.Tensor): tf.Scalar =>
  tf.tidy(() => tf.div(tf.neg(tf.sum(tf.mul(logprobs, actionMask))), tf.maximum(tf.sum(actionMask), 1)) as tf.Scalar)

const tensors = (batch: Batch.Batch): { readonly ids: tf.Tensor2D; readonly mask: tf.Tensor2D } => ({
  ids: tf.tensor2d(batch.ids, [batch.batch, batch.time], 'int32'),
  mask: tf.tensor2d(batch.actionMask, [batch.batch, batch.time], 'float32')
})

/**
 * 1 on the context tokens a row predicts (positions 1 .. length-1 that are not actions): the
 * first token has no prediction and padding is not data.
 *
 * @category models
 * @since 0.1.0
 */
export const contextMask = (batch: Batch.Batch): Float32Array => {
  const out = new Float32Array(batch.batch * batch.time)
  for (let b = 0; b < batch.batch; b++) {
    const row = b * batch.time
    for (let t = 1; t < batch.lengths[b]!; t++) out[row + t] = batch.actionMask[row + t] === 1 ? 0 : 1
  }
  return out
}

const chunks = <A>(items: ReadonlyArray<A>, size: number): A[][] => {
  const out: A[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/**
 * One epoch's batches: `samples` shuffled and cut into batches of `batchSize`; with
 * `groupByLength`, batches of similar lengths (see {@link Options}).
 *
 * @category combinators
 * @since 0.1.0
 */
export const epochBatches =
  (options: Pick<Options, 'batchSize' | 'groupByLength'>, rng: Rng.Rng) =>
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

/**
 * The weight average's decay after `n` steps: `min(emaDecay, (1 + n) / (10 + n))`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const emaDecayAt = (emaDecay: number, n: number): number => Math.min(emaDecay, (1 + n) / (10 + n))

/**
 * Mean action-token NLL of `samples` under `policy` (token-weighted over all samples; no
 * gradient). NaN for no samples.
 *
 * @category destructors
 * @since 0.1.0
 */
export const evaluate =
  (policy: Policy.Policy, batchSize = 16) =>
  (samples: ReadonlyArray<Trajectory.Trajectory>): number => {
    let nll = 0
    let count = 0
    for (const part of chunks(samples, batchSize)) {
      const batch = Batch.make({ pad: 0 })(part)
      const { ids, mask } = tensors(batch)
      const sum = tf.tidy(() => tf.neg(tf.sum(tf.mul(Scoring.tokenLogprobs(policy, { entropy: false })(ids).logprobs, mask))))
      nll += sum.dataSync()[0]!
      count += batch.actionMask.reduce((a, b) => a + b, 0)
      tf.dispose([ids, mask, sum])
    }
    return count === 0 ? Number.NaN : nll / count
  }

interface StepOutcome {
  readonly loss: number
  readonly gradNorm: number
  readonly aux?: Readonly<Record<string, number>>
}

/** One optimizer step on `part` in this thread. */
const singleStep = (options: Options, policy: Policy.Policy, optimizer: Optimizer.Optimizer, part: ReadonlyArray<Trajectory.Trajectory>, lr: number): StepOutcome => {
  const batch = Batch.make({ pad: 0 })(part)
  const { ids, mask } = tensors(batch)
  const context = options.contextWeight > 0 ? tf.tensor2d(contextMask(batch), [batch.batch, batch.time], 'float32') : undefined
  try {
    return Optimizer.step(optimizer, { learningRate: lr, maxNorm: options.maxGradNorm }, () =>
      tf.tidy(() => {
        const logprobs = Scoring.tokenLogprobs(policy, { entropy: false })(ids).logprobs
        const action = actionLoss(logprobs, mask)
        if (context === undefined) return { loss: action }
        const contextNll = actionLoss(logprobs, context)
        return { loss: tf.add(action, tf.mul(contextNll, options.contextWeight)) as tf.Scalar, aux: { action, context: contextNll } }
      })
    )
  } finally {
    tf.dispose([ids, mask, ...(context === undefined ? [] : [context])])
  }
}

/**
 * One optimizer step on `part` split across this thread and the replicas: the same loss as
 * {@link singleStep} (each shard's token sums divided by the whole batch's token counts), the
 * gradients summed before clipping and Adam.
 */
const parallelStep = (
  options: Options,
  policy: Policy.Policy,
  optimizer: Optimizer.Optimizer,
  replicas: Replicas.Pool,
  part: ReadonlyArray<Trajectory.Trajectory>,
  lr: number
): StepOutcome => {
  const withContext = options.contextWeight > 0
  const shards: Shard[] = Replicas.split(part.map(Trajectory.length), replicas.size + 1).map((rows) => {
    const batch = Batch.make({ pad: 0 })(rows.map((r) => part[r]!))
    return { rows: batch.batch, time: batch.time, ids: batch.ids, masks: withContext ? [batch.actionMask, contextMask(batch)] : [batch.actionMask] }
  })
  const total = (k: number): number => shards.reduce((n, s) => n + s.masks[k]!.reduce((a, b) => a + b, 0), 0)
  const counts = withContext ? [total(0), total(1)] : [total(0)]
  const coefs = counts.map((c, k) => (k === 0 ? 1 : options.contextWeight) / Math.max(c, 1))
  const answers = Replicas.dispatch(replicas, Replicas.flatWeights(replicas), shards.slice(1), coefs)
  const local = Optimizer.gradients(optimizer.variables, () => weightedNll(policy, shards[0]!, coefs))
  let grads = local.grads
  try {
    const remote = answers()
    grads = tf.tidy(() => {
      const sizes = grads.map((g) => g.size)
      const offsets = sizes.map((_, i) => sizes.slice(0, i).reduce((a, b) => a + b, 0))
      return grads.map((g, i) => tf.addN([g, ...remote.map((a) => tf.tensor(a.grads.subarray(offsets[i]!, offsets[i]! + sizes[i]!), g.shape))]))
    })
    tf.dispose(local.grads)
    const gradNorm = Optimizer.apply(optimizer, { learningRate: lr, maxNorm: options.maxGradNorm }, grads)
    const sum = (k: number): number => (local.aux[`s${k}`] ?? 0) + remote.reduce((n, a) => n + a.sums[k]!, 0)
    const action = -sum(0) / Math.max(counts[0]!, 1)
    if (!withContext) return { loss: action, gradNorm }
    const context = -sum(1) / Math.max(counts[1]!, 1)
    return { loss: action + options.contextWeight * context, gradNorm, aux: { action, context } }
  } finally {
    tf.dispose(grads)
    tf.dispose(local.grads)
  }
}

/** What the loop yields after every step: the steps taken so far, and how to snapshot them. */
interface Pause {
  readonly step: number
  readonly snapshot: () => Snapshot
}

/**
 * The training loop as a generator that pauses after every step (see {@link train},
 * {@link trainAsync}). From a snapshot, it replays the data order (same random stream) without
 * training up to the snapshot's step, then goes on.
 */
function* trainingLoop(
  options: Options,
  policy: Policy.Policy,
  samples: ReadonlyArray<Trajectory.Trajectory>,
  hooks: Hooks,
  replicas: Replicas.Pool | undefined,
  from: Snapshot | undefined
): Generator<Pause, Result> {
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
  const average =
    options.emaDecay > 0
      ? variables.map((v, i) => {
          const saved = from?.average?.[i]
          const copy = saved === undefined ? tf.clone(v) : tf.tensor(saved, v.shape)
          const a = tf.variable(copy, false)
          copy.dispose()
          return a
        })
      : undefined
  const initialHeldOut = from === undefined ? evaluate(policy)(heldOut) : from.initialHeldOut
  const steps: StepMetrics[] = [...(from?.steps ?? [])]
  const epochs: EpochMetrics[] = [...(from?.epochs ?? [])]
  const snapshot = (): Snapshot => ({
    optimizer: Optimizer.state(optimizer),
    average: average?.map((a) => new Float32Array(a.dataSync())),
    initialHeldOut,
    steps: [...steps],
    epochs: [...epochs]
  })
  try {
    let taken = 0
    for (let epoch = 0; epoch < options.epochs; epoch++) {
      let sum = 0
      for (const part of epochBatches(options, rng)(trainSet)) {
        if (taken < steps.length) {
          // replayed: taken before the snapshot
          sum += steps[taken]!['loss/sft']
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
          const decay = emaDecayAt(options.emaDecay, steps.length)
          tf.tidy(() => average.forEach((a, i) => a.assign(tf.add(tf.mul(a, decay), tf.mul(variables[i]!, 1 - decay)))))
        }
        hooks.onStep?.(metrics, totalSteps)
        yield { step: steps.length, snapshot }
      }
      if (epochs.length > epoch) continue // finished before the snapshot
      if (average !== undefined && epoch === options.epochs - 1) variables.forEach((v, i) => v.assign(average[i]!))
      const done: EpochMetrics = { epoch, 'loss/train': sum / Math.max(1, stepsPerEpoch), 'loss/heldout': evaluate(policy)(heldOut) }
      epochs.push(done)
      hooks.onEpoch?.(done)
    }
  } finally {
    optimizer.dispose()
    average?.forEach((a) => a.dispose())
  }
  return { initialHeldOut, steps, epochs }
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
    checkpoints: Checkpoints = {}
  ): Promise<Result | undefined> => {
    const loop = trainingLoop(options, policy, samples, hooks, replicas, checkpoints.from)
    const every = checkpoints.every ?? 0
    try {
      for (;;) {
        const next = loop.next()
        if (next.done === true) return next.value
        await new Promise<void>((resolve) => setImmediate(resolve))
        const stopping = stop()
        if (checkpoints.save !== undefined && (stopping || (every > 0 && next.value.step % every === 0))) await checkpoints.save(next.value.snapshot())
        if (stopping) return undefined
      }
    } finally {
      loop.return(undefined as unknown as Result)
    }
  }
