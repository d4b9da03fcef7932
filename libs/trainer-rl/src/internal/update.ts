/**
 * Minibatch updates of one iteration: PPO epochs over shuffled minibatches, a policy step
 * (policy loss + KL in loss - entropy bonus) and a critic step (clipped value loss) each. A
 * critic that shares the policy's trunk takes both steps from one forward and backward pass.
 * With data-parallel replicas each minibatch is cut into shards of similar token counts, one
 * for this thread and one per worker; every loss is a sum with the whole minibatch's weights
 * (./shardLoss.ts), so the shards' gradients and metrics add up to the minibatch's.
 */
import { Rng } from '@mtrl/core'
import { Critic, Scoring, type Policy } from '@mtrl/policy'
import { Batch } from '@mtrl/rollout'
import { Optimizer } from '@mtrl/optim'
import { Pool as Workers } from '@mtrl/replicas'
import * as tf from '@tensorflow/tfjs'
import * as Aggregation from '../Aggregation.js'
import type { Resolved as Config } from '../Config.js'
import type * as UpdateReplicas from '../UpdateReplicas.js'
import {
  idsOf,
  microShards,
  policyLoss,
  policyTerms,
  scoringOf,
  valueLoss,
  valueTerms,
  type LossSettings,
  type PolicyShard,
  type ValueShard
} from './shardLoss.js'
import { splitPayload, type UpdatePayload } from './updateTask.js'

export interface UpdateInput {
  readonly batch: Batch.Batch
  readonly oldLogprobs: Float32Array
  readonly advantages: Float32Array
  readonly returns: Float32Array
  readonly oldValues?: Float32Array
  readonly refLogprobs?: Float32Array
  /** Per-token weights of the policy-gradient term (`ImportanceSampling`), `[batch, time]`. */
  readonly importanceWeights?: Float32Array
}

export interface UpdateContext {
  readonly config: Config
  readonly policy: Policy.Policy
  readonly critic: Critic.Critic | undefined
  readonly policyOptimizer: Optimizer.Optimizer
  readonly criticOptimizer: Optimizer.Optimizer | undefined
  readonly policyLr: number
  readonly updatePolicy: boolean
  readonly klCoef: number
  readonly shuffle: Rng.Rng
  /** Data-parallel replicas of the policy and critic (none: this thread alone). */
  readonly replicas?: UpdateReplicas.Pool
}

export interface UpdateMetrics {
  readonly policyLoss: number
  readonly valueLoss: number
  readonly clipFraction: number
  readonly valueClipFraction: number
  readonly approxKl: number
  readonly klLoss: number
  readonly entropy: number
  readonly policyGradNorm: number
  readonly criticGradNorm: number
  /** The auxiliary next-token loss on prompt and observation tokens (NaN when `contextCoef` is 0). */
  readonly contextLoss: number
  /** Mean |trainer log-prob - sampler log-prob| on the first minibatch, before any step (NaN without a policy step). */
  readonly samplerGap: number
  readonly steps: number
}

const mean = (xs: ReadonlyArray<number>): number => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length)

/** 1 on the prompt and observation tokens of each row (not its first token, not padding). */
const contextMaskOf = (batch: Batch.Batch): Float32Array => {
  const out = new Float32Array(batch.batch * batch.time)
  for (let b = 0; b < batch.batch; b++) for (let t = 1; t < batch.lengths[b]!; t++) if (batch.actionMask[b * batch.time + t] === 0) out[b * batch.time + t] = 1
  return out
}

/** Rows `rows` of a [batch, time] array, each cut to `width`. */
const cut = <A extends Float32Array | Int32Array>(src: A, time: number, rows: ReadonlyArray<number>, width: number): A => {
  const out = new (src.constructor as new (n: number) => A)(rows.length * width)
  rows.forEach((r, i) => out.set(src.subarray(r * time, r * time + width), i * width))
  return out
}

const times = (a: Float32Array, b: Float32Array): Float32Array => a.map((x, i) => x * b[i]!)

const settingsOf = (config: Config, klInLoss: boolean): LossSettings => ({
  temperature: config.rollout.temperature,
  policyLoss: { name: config.loss.policyLoss, options: config.loss.options },
  valueClip: config.critic.valueClip,
  entropyCoef: config.loss.entropyCoef,
  contextCoef: config.loss.contextCoef,
  klInLoss: klInLoss ? config.kl.estimator : undefined,
  recompute: config.update.recompute
})

/** What every minibatch of the update shares. */
interface Plan {
  readonly context: UpdateContext
  readonly input: UpdateInput
  readonly settings: LossSettings
  readonly klInLoss: boolean
  /** `[batch, time]`: the prompt and observation tokens (the context loss), when it is on. */
  readonly contextMask: Float32Array | undefined
  readonly critic: { readonly critic: Critic.Critic; readonly optimizer: Optimizer.Optimizer } | undefined
  /** A critic that shares the policy's trunk: both steps from one forward and backward pass. */
  readonly fused: boolean
}

const planOf = (context: UpdateContext, input: UpdateInput): Plan => {
  const { config, policy, critic, replicas } = context
  const klInLoss = config.kl.placement === 'loss' && input.refLogprobs !== undefined
  const criticStep =
    critic !== undefined && context.criticOptimizer !== undefined && input.oldValues !== undefined ? { critic, optimizer: context.criticOptimizer } : undefined
  const fused = context.updatePolicy && criticStep !== undefined && criticStep.critic.shareTrunk && criticStep.critic.policy === policy
  if (fused && replicas !== undefined && replicas.size > 0) throw new Error('update: replicas do not take a critic that shares the policy trunk')
  return {
    context,
    input,
    settings: settingsOf(config, klInLoss),
    klInLoss,
    contextMask: config.loss.contextCoef > 0 ? contextMaskOf(input.batch) : undefined,
    critic: criticStep,
    fused
  }
}

interface Shard {
  readonly policyShard: PolicyShard
  readonly valueShard: ValueShard | undefined
}

/**
 * The shards of the minibatch `part` (batch rows): one per thread, of similar token counts, each
 * cut to its own longest row (only padding goes; causal scoring of the kept tokens is
 * unchanged), with the minibatch's weights at full width: the configured aggregation (Dr.
 * GRPO's norm by the batch's width, the same for every minibatch), a token mean over its action
 * tokens, and a token mean over its context tokens. `first`: the first minibatch, where the
 * sampler's gap to the trainer is measured.
 */
const shardsOf = (plan: Plan, part: ReadonlyArray<number>, first: boolean): ReadonlyArray<Shard> => {
  const { context, input, contextMask } = plan
  const { batch } = input
  const T = batch.time
  const mask = cut(batch.actionMask, T, part, T)
  const weights = Aggregation.weights(context.config.loss.aggregation, T)(mask, part.length, T)
  const meanWeights = Aggregation.weights('token-mean')(mask, part.length, T)
  const contextWeights = contextMask === undefined ? undefined : Aggregation.weights('token-mean')(cut(contextMask, T, part, T), part.length, T)
  const groups = plan.fused
    ? [part.map((_, i) => i)]
    : Workers.split(
        part.map((r) => batch.lengths[r]!),
        1 + (context.replicas?.size ?? 0)
      )
  return groups.map((at) => {
    const picked = at.map((i) => part[i]!)
    const width = picked.reduce((w, r) => Math.max(w, batch.lengths[r]!), 1)
    const rows = <A extends Float32Array | Int32Array>(x: A): A => cut(x, T, picked, width)
    const common = { rows: picked.length, time: width, ids: rows(batch.ids) }
    const policyShard: PolicyShard = {
      ...common,
      oldLogprobs: rows(input.oldLogprobs),
      advantages: rows(input.advantages),
      weights: cut(weights, T, at, width),
      ...(input.importanceWeights === undefined ? {} : { pgWeights: times(cut(weights, T, at, width), rows(input.importanceWeights)) }),
      meanWeights: cut(meanWeights, T, at, width),
      ...(contextWeights === undefined ? {} : { contextWeights: cut(contextWeights, T, at, width) }),
      ...(plan.klInLoss ? { refLogprobs: rows(input.refLogprobs!) } : {}),
      ...(context.updatePolicy && first ? { samplerLogprobs: rows(batch.samplerLogprobs) } : {}),
      ...(batch.allowed === undefined ? {} : { allowed: picked.map((r) => batch.allowed![r] ?? []) })
    }
    const valueShard: ValueShard | undefined =
      input.oldValues === undefined
        ? undefined
        : { ...common, oldValues: rows(input.oldValues), returns: rows(input.returns), weights: policyShard.weights, meanWeights: policyShard.meanWeights }
    return { policyShard, valueShard }
  })
}

/** The per-step metrics of an update, and their means. */
interface Recorder {
  readonly policy: (aux: Readonly<Record<string, number>>, gradNorm: number, first: boolean) => void
  readonly critic: (aux: Readonly<Record<string, number>>, gradNorm: number) => void
  readonly steps: () => number
  readonly means: () => UpdateMetrics
}

const recorder = (withContextLoss: boolean): Recorder => {
  const m: Record<keyof Omit<UpdateMetrics, 'steps'>, number[]> = {
    policyLoss: [],
    valueLoss: [],
    clipFraction: [],
    valueClipFraction: [],
    approxKl: [],
    klLoss: [],
    entropy: [],
    policyGradNorm: [],
    criticGradNorm: [],
    samplerGap: [],
    contextLoss: []
  }
  return {
    policy: (aux, gradNorm, first) => {
      if (first) m.samplerGap.push(aux['gap'] ?? Number.NaN)
      if (withContextLoss) m.contextLoss.push(aux['contextLoss']!)
      m.policyLoss.push(aux['policyLoss']!)
      m.clipFraction.push(aux['clipFraction']!)
      m.approxKl.push(aux['approxKl']!)
      m.klLoss.push(aux['klLoss']!)
      m.entropy.push(aux['entropy']!)
      m.policyGradNorm.push(gradNorm)
    },
    critic: (aux, gradNorm) => {
      m.valueLoss.push(aux['valueLoss']!)
      m.valueClipFraction.push(aux['valueClipFraction']!)
      m.criticGradNorm.push(gradNorm)
    },
    steps: () => m.policyLoss.length,
    means: () => ({ ...(Object.fromEntries(Object.entries(m).map(([k, xs]) => [k, mean(xs)])) as Omit<UpdateMetrics, 'steps'>), steps: m.policyLoss.length })
  }
}

/** Applies `grads` (clipped to `maxGradNorm`) with `optimizer`; the gradient norm before clipping. Disposes the gradients. */
const applied = (config: Config, optimizer: Optimizer.Optimizer, learningRate: number, grads: tf.Tensor[]): number => {
  try {
    return Optimizer.apply(optimizer, { learningRate, maxNorm: config.update.maxGradNorm }, grads)
  } finally {
    tf.dispose(grads)
  }
}

/**
 * A critic that shares the policy's trunk: log-probs and values from one forward pass, one
 * backward, each part's gradients applied by its own optimizer at its own rate and clip. Without
 * `valueCoef` the values read the trunk through a stop-gradient, so the two parts are disjoint.
 */
const fusedStep = (plan: Plan, shard: Shard, record: Recorder, first: boolean): void => {
  const { context, settings } = plan
  const { config, policy } = context
  const critic = plan.critic!
  const policyVariables = context.policyOptimizer.variables
  const micro = microShards(config.update.microBatchTokens)
  const values = micro(shard.valueShard!)
  const pairs = micro(shard.policyShard).map((p, i) => ({ policyShard: p, valueShard: values[i]! }))
  const toTrunk = config.critic.valueCoef > 0
  const { grads, aux } = Optimizer.accumulatedGradients([...policyVariables, ...critic.optimizer.variables], pairs, (pair) => {
    const scores = Scoring.tokenLogprobsWithValues(policy, critic.critic, {
      ...scoringOf(pair.policyShard, settings),
      valueGradient: toTrunk ? 'trunk' : 'head'
    })(idsOf(pair.policyShard), settings.temperature)
    const p = policyTerms(settings, context.klCoef, pair.policyShard, scores)
    const v = valueTerms(settings, pair.valueShard, scores.values)
    return { loss: tf.add(p.loss, toTrunk ? tf.mul(v.loss, config.critic.valueCoef) : v.loss) as tf.Scalar, aux: { ...p.aux, ...v.aux } }
  })
  record.policy(aux, applied(config, context.policyOptimizer, context.policyLr, grads.slice(0, policyVariables.length)), first)
  record.critic(aux, applied(config, critic.optimizer, config.critic.lr, grads.slice(policyVariables.length)))
}

/** The policy's step, its shards shared between this thread and the replicas. */
const policyStep = (plan: Plan, shards: ReadonlyArray<Shard>, record: Recorder, first: boolean): void => {
  const { context, settings } = plan
  const microTokens = context.config.update.microBatchTokens
  const split = (p: UpdatePayload & { readonly part: 'policy' }) => splitPayload(p) as ReadonlyArray<typeof p>
  const payloads = shards.map((s) => ({ part: 'policy', settings, klCoef: context.klCoef, microTokens, shard: s.policyShard }) satisfies UpdatePayload)
  const { grads, aux } = Workers.gradients(
    context.replicas?.workers,
    'policy',
    context.policyOptimizer.variables,
    payloads,
    (p) => policyLoss(context.policy, settings, p.klCoef, p.shard),
    split
  )
  record.policy(aux, applied(context.config, context.policyOptimizer, context.policyLr, grads), first)
}

/** The critic's step, its shards shared between this thread and the replicas. */
const criticStep = (plan: Plan, shards: ReadonlyArray<Shard>, record: Recorder): void => {
  const { context, settings } = plan
  const critic = plan.critic!
  const microTokens = context.config.update.microBatchTokens
  const split = (p: UpdatePayload & { readonly part: 'critic' }) => splitPayload(p) as ReadonlyArray<typeof p>
  const payloads = shards.map((s) => ({ part: 'critic', settings, microTokens, shard: s.valueShard! }) satisfies UpdatePayload)
  const { grads, aux } = Workers.gradients(
    context.replicas?.workers,
    'critic',
    critic.optimizer.variables,
    payloads,
    (p) => valueLoss(critic.critic, settings, p.shard),
    split
  )
  record.critic(aux, applied(context.config, critic.optimizer, context.config.critic.lr, grads))
}

/** The update of one iteration (see the module comment): `ppoEpochs` passes over shuffled minibatches. */
export const update = (context: UpdateContext, input: UpdateInput): UpdateMetrics => {
  const plan = planOf(context, input)
  const record = recorder(plan.contextMask !== undefined)
  const rows = Array.from({ length: input.batch.batch }, (_, i) => i)
  for (let epoch = 0; epoch < context.config.update.epochs; epoch++) {
    const order = Rng.shuffle(context.shuffle)(rows)
    const size = Math.ceil(order.length / Math.max(1, context.config.update.minibatches))
    for (let start = 0; start < order.length; start += size) {
      const first = record.steps() === 0
      const shards = shardsOf(plan, order.slice(start, start + size), first)
      if (plan.fused) fusedStep(plan, shards[0]!, record, first)
      else {
        if (context.updatePolicy) policyStep(plan, shards, record, first)
        if (plan.critic !== undefined) criticStep(plan, shards, record)
      }
    }
  }
  return record.means()
}
