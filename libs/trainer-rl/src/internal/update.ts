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
import type { Config } from '../Config.js'
import type * as UpdateReplicas from '../UpdateReplicas.js'
import { idsOf, microShards, policyLoss, policyTerms, valueLoss, valueTerms, type LossSettings, type PolicyShard, type ValueShard } from './shardLoss.js'
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
  readonly lossKind: 'ppo' | 'policyGradient'
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
  for (let b = 0; b < batch.batch; b++)
    for (let t = 1; t < batch.lengths[b]!; t++) if (batch.actionMask[b * batch.time + t] === 0) out[b * batch.time + t] = 1
  return out
}

/** Rows `rows` of a [batch, time] array, each cut to `width`. */
const cut = <A extends Float32Array | Int32Array>(src: A, time: number, rows: ReadonlyArray<number>, width: number): A => {
  const out = new (src.constructor as new (n: number) => A)(rows.length * width)
  rows.forEach((r, i) => out.set(src.subarray(r * time, r * time + width), i * width))
  return out
}

const times = (a: Float32Array, b: Float32Array): Float32Array => a.map((x, i) => x * b[i]!)

const settingsOf = (config: Config, lossKind: UpdateContext['lossKind'], klInLoss: boolean): LossSettings => ({
  temperature: config.rollout.temperature,
  clipLow: config.clipLow,
  clipHigh: config.clipHigh,
  dualClip: lossKind === 'ppo' ? config.dualClip : null,
  valueClip: config.valueClip,
  entropyCoef: config.entropyCoef,
  contextCoef: config.contextCoef,
  klInLoss: klInLoss ? config.kl.estimator : undefined
})

export const update = (context: UpdateContext, input: UpdateInput): UpdateMetrics => {
  const { config, policy, critic, replicas } = context
  const batch = input.batch
  const T = batch.time
  const rows = Array.from({ length: batch.batch }, (_, i) => i)
  const m: Record<keyof Omit<UpdateMetrics, 'steps'>, number[]> = {
    policyLoss: [], valueLoss: [], clipFraction: [], valueClipFraction: [], approxKl: [], klLoss: [], entropy: [], policyGradNorm: [], criticGradNorm: [], samplerGap: [], contextLoss: []
  }
  const klInLoss = config.kl.placement === 'loss' && input.refLogprobs !== undefined
  const settings = settingsOf(config, context.lossKind, klInLoss)
  const contextMask = config.contextCoef > 0 ? contextMaskOf(batch) : undefined
  const criticStep = critic !== undefined && context.criticOptimizer !== undefined && input.oldValues !== undefined ? { critic, optimizer: context.criticOptimizer } : undefined
  const fused = context.updatePolicy && criticStep !== undefined && criticStep.critic.shareTrunk && criticStep.critic.policy === policy
  if (fused && replicas !== undefined && replicas.size > 0) throw new Error('update: replicas do not take a critic that shares the policy trunk')
  const shardCount = 1 + (replicas?.size ?? 0)
  const microTokens = config.microBatchTokens
  const splitPolicy = (p: UpdatePayload & { readonly part: 'policy' }) => splitPayload(p) as ReadonlyArray<typeof p>
  const splitCritic = (p: UpdatePayload & { readonly part: 'critic' }) => splitPayload(p) as ReadonlyArray<typeof p>
  for (let epoch = 0; epoch < config.ppoEpochs; epoch++) {
    const order = Rng.shuffle(context.shuffle)(rows)
    const size = Math.ceil(order.length / Math.max(1, config.minibatches))
    for (let start = 0; start < order.length; start += size) {
      const part = order.slice(start, start + size)
      // The minibatch's weights, at full width: a token mean over its action tokens, the
      // configured aggregation (Dr. GRPO's norm by the batch's width, the same for every
      // minibatch), and a token mean over its context tokens.
      const mask = cut(batch.actionMask, T, part, T)
      const weights = Aggregation.weights(config.aggregation, T)(mask, part.length, T)
      const meanWeights = Aggregation.weights('token-mean')(mask, part.length, T)
      const contextWeights = contextMask === undefined ? undefined : Aggregation.weights('token-mean')(cut(contextMask, T, part, T), part.length, T)
      // Shards of similar token counts, each cut to its own longest row: only padding goes,
      // and causal scoring of the kept tokens is unchanged.
      const groups = fused ? [part.map((_, i) => i)] : Workers.split(part.map((r) => batch.lengths[r]!), shardCount)
      const first = m.policyLoss.length === 0
      const shards = groups.map((at) => {
        const picked = at.map((i) => part[i]!)
        const width = picked.reduce((w, r) => Math.max(w, batch.lengths[r]!), 1)
        const common = { rows: picked.length, time: width, ids: cut(batch.ids, T, picked, width) }
        const policyShard: PolicyShard = {
          ...common,
          oldLogprobs: cut(input.oldLogprobs, T, picked, width),
          advantages: cut(input.advantages, T, picked, width),
          weights: cut(weights, T, at, width),
          ...(input.importanceWeights === undefined ? {} : { pgWeights: times(cut(weights, T, at, width), cut(input.importanceWeights, T, picked, width)) }),
          meanWeights: cut(meanWeights, T, at, width),
          ...(contextWeights === undefined ? {} : { contextWeights: cut(contextWeights, T, at, width) }),
          ...(klInLoss ? { refLogprobs: cut(input.refLogprobs!, T, picked, width) } : {}),
          ...(context.updatePolicy && first ? { samplerLogprobs: cut(batch.samplerLogprobs, T, picked, width) } : {})
        }
        const valueShard: ValueShard | undefined =
          input.oldValues === undefined
            ? undefined
            : { ...common, oldValues: cut(input.oldValues, T, picked, width), returns: cut(input.returns, T, picked, width), weights: policyShard.weights, meanWeights: policyShard.meanWeights }
        return { policyShard, valueShard }
      })
      const recordPolicy = (aux: Readonly<Record<string, number>>, gradNorm: number): void => {
        if (first) m.samplerGap.push(aux['gap'] ?? Number.NaN)
        if (contextMask !== undefined) m.contextLoss.push(aux['contextLoss']!)
        m.policyLoss.push(aux['policyLoss']!)
        m.clipFraction.push(aux['clipFraction']!)
        m.approxKl.push(aux['approxKl']!)
        m.klLoss.push(aux['klLoss']!)
        m.entropy.push(aux['entropy']!)
        m.policyGradNorm.push(gradNorm)
      }
      const recordCritic = (aux: Readonly<Record<string, number>>, gradNorm: number): void => {
        m.valueLoss.push(aux['valueLoss']!)
        m.valueClipFraction.push(aux['valueClipFraction']!)
        m.criticGradNorm.push(gradNorm)
      }
      const applied = (optimizer: Optimizer.Optimizer, learningRate: number, grads: tf.Tensor[]): number => {
        try {
          return Optimizer.apply(optimizer, { learningRate, maxNorm: config.maxGradNorm }, grads)
        } finally {
          tf.dispose(grads)
        }
      }
      if (fused) {
        // A shared trunk: log-probs and values from one forward pass, one backward, each part's
        // gradients applied by its own optimizer at its own rate and clip. Without `valueCoef`
        // the values read the trunk through a stop-gradient, so the two parts are disjoint.
        const { policyShard, valueShard } = shards[0]!
        const policyVariables = context.policyOptimizer.variables
        const micro = microShards(microTokens)
        const values = micro(valueShard!)
        const pairs = micro(policyShard).map((p, i) => ({ policyShard: p, valueShard: values[i]! }))
        const { grads, aux } = Optimizer.accumulatedGradients([...policyVariables, ...criticStep!.optimizer.variables], pairs, (pair) => {
          const toTrunk = config.valueCoef > 0
          const scores = Scoring.tokenLogprobsWithValues(policy, criticStep!.critic, { entropy: true, valueGradient: toTrunk ? 'trunk' : 'head' })(idsOf(pair.policyShard), settings.temperature)
          const p = policyTerms(settings, context.klCoef, pair.policyShard, scores)
          const v = valueTerms(settings, pair.valueShard, scores.values)
          return { loss: tf.add(p.loss, toTrunk ? tf.mul(v.loss, config.valueCoef) : v.loss) as tf.Scalar, aux: { ...p.aux, ...v.aux } }
        })
        recordPolicy(aux, applied(context.policyOptimizer, context.policyLr, grads.slice(0, policyVariables.length)))
        recordCritic(aux, applied(criticStep!.optimizer, config.criticLr, grads.slice(policyVariables.length)))
        continue
      }
      const workers = replicas?.workers
      if (context.updatePolicy) {
        const payloads = shards.map((s) => ({ part: 'policy', settings, klCoef: context.klCoef, microTokens, shard: s.policyShard }) satisfies UpdatePayload)
        const { grads, aux } = Workers.gradients(workers, 'policy', context.policyOptimizer.variables, payloads, (p) => policyLoss(policy, settings, p.klCoef, p.shard), splitPolicy)
        recordPolicy(aux, applied(context.policyOptimizer, context.policyLr, grads))
      }
      if (criticStep !== undefined) {
        const payloads = shards.map((s) => ({ part: 'critic', settings, microTokens, shard: s.valueShard! }) satisfies UpdatePayload)
        const { grads, aux } = Workers.gradients(workers, 'critic', criticStep.optimizer.variables, payloads, (p) => valueLoss(criticStep.critic, settings, p.shard), splitCritic)
        recordCritic(aux, applied(criticStep.optimizer, config.criticLr, grads))
      }
    }
  }
  return {
    policyLoss: mean(m.policyLoss),
    valueLoss: mean(m.valueLoss),
    clipFraction: mean(m.clipFraction),
    valueClipFraction: mean(m.valueClipFraction),
    approxKl: mean(m.approxKl),
    klLoss: mean(m.klLoss),
    entropy: mean(m.entropy),
    policyGradNorm: mean(m.policyGradNorm),
    criticGradNorm: mean(m.criticGradNorm),
    samplerGap: mean(m.samplerGap),
    contextLoss: mean(m.contextLoss),
    steps: m.policyLoss.length
  }
}
