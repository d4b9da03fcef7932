/**
 * One SFT optimizer step, in this thread or split across data-parallel replicas.
 */
import { Trajectory } from '@mtrl/core'
import { Optimizer } from '@mtrl/optim'
import { Scoring, type Policy } from '@mtrl/policy'
import { Batch } from '@mtrl/rollout'
import * as tf from '@tensorflow/tfjs'
import { actionLoss, contextMask, tensors } from '../Loss.js'
import { Pool as Workers } from '@mtrl/replicas'
import * as Replicas from '../Replicas.js'
import type { Options } from '../Sft.js'
import { weightedNll, type Shard } from './weightedNll.js'

export interface StepOutcome {
  readonly loss: number
  readonly gradNorm: number
  readonly aux?: Readonly<Record<string, number>>
}

/** One optimizer step on `part` in this thread. */
export const singleStep = (
  options: Options,
  policy: Policy.Policy,
  optimizer: Optimizer.Optimizer,
  part: ReadonlyArray<Trajectory.Trajectory>,
  lr: number
): StepOutcome => {
  const batch = Batch.make({ pad: 0 })(part)
  const { ids, mask } = tensors(batch)
  const context = options.contextWeight > 0 ? tf.tensor2d(contextMask(batch), [batch.batch, batch.time], 'float32') : undefined
  try {
    return Optimizer.step(optimizer, { learningRate: lr, maxNorm: options.maxGradNorm }, () =>
      tf.tidy(() => {
        const logprobs = Scoring.tokenLogprobs(policy, { entropy: false, recompute: options.recompute })(ids).logprobs
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
export const parallelStep = (
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
  const { grads, aux } = Workers.gradients(
    replicas.workers,
    'policy',
    replicas.variables,
    shards.map((shard) => ({ shard, coefs, recompute: options.recompute })),
    (payload) => weightedNll(policy, payload.shard, payload.coefs, payload.recompute)
  )
  try {
    const gradNorm = Optimizer.apply(optimizer, { learningRate: lr, maxNorm: options.maxGradNorm }, grads)
    const action = -(aux['s0'] ?? 0) / Math.max(counts[0]!, 1)
    if (!withContext) return { loss: action, gradNorm }
    const context = -(aux['s1'] ?? 0) / Math.max(counts[1]!, 1)
    return { loss: action + options.contextWeight * context, gradNorm, aux: { action, context } }
  } finally {
    tf.dispose(grads)
  }
}
