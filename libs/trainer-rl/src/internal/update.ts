/**
 * Minibatch updates of one iteration: PPO epochs over shuffled minibatches, a policy step
 * (policy loss + KL in loss - entropy bonus) and a critic step (clipped value loss) each. A
 * critic that shares the policy's trunk takes both steps from one forward and backward pass.
 */
import { Rng } from '@mtrl/core'
import { Critic, Scoring, type Policy } from '@mtrl/policy'
import { Batch } from '@mtrl/rollout'
import { Optimizer } from '@mtrl/optim'
import * as tf from '@tensorflow/tfjs'
import * as Aggregation from '../Aggregation.js'
import type { Config } from '../Config.js'
import * as Kl from '../Kl.js'
import * as PolicyGradient from '../PolicyGradient.js'
import * as Ppo from '../Ppo.js'
import * as ValueLoss from '../ValueLoss.js'
import { shiftRight } from './score.js'

export interface UpdateInput {
  readonly batch: Batch.Batch
  readonly oldLogprobs: Float32Array
  readonly advantages: Float32Array
  readonly returns: Float32Array
  readonly oldValues?: Float32Array
  readonly refLogprobs?: Float32Array
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

export const update = (context: UpdateContext, input: UpdateInput): UpdateMetrics => {
  const { config, policy, critic } = context
  const temperature = config.rollout.temperature
  const rows = Array.from({ length: input.batch.batch }, (_, i) => i)
  const m: Record<keyof Omit<UpdateMetrics, 'steps'>, number[]> = {
    policyLoss: [], valueLoss: [], clipFraction: [], valueClipFraction: [], approxKl: [], klLoss: [], entropy: [], policyGradNorm: [], criticGradNorm: [], samplerGap: [], contextLoss: []
  }
  const T = input.batch.time
  const klInLoss = config.kl.placement === 'loss' && input.refLogprobs !== undefined
  const policyLoss = context.lossKind === 'ppo'
    ? Ppo.loss({ clipLow: config.clipLow, clipHigh: config.clipHigh, dualClip: config.dualClip, aggregation: config.aggregation })
    : PolicyGradient.loss({ clipLow: config.clipLow, clipHigh: config.clipHigh, aggregation: config.aggregation })
  for (let epoch = 0; epoch < config.ppoEpochs; epoch++) {
    const order = Rng.shuffle(context.shuffle)(rows)
    const size = Math.ceil(order.length / Math.max(1, config.minibatches))
    for (let start = 0; start < order.length; start += size) {
      const part = order.slice(start, start + size)
      // Each minibatch is cut to its own longest row: only padding goes, and causal scoring of
      // the kept tokens is unchanged.
      const mb = Batch.trim(Batch.select(part)(input.batch))
      const Tm = mb.time
      const pick = (src: Float32Array): tf.Tensor2D => {
        const out = new Float32Array(part.length * Tm)
        part.forEach((r, i) => out.set(src.subarray(r * T, r * T + Tm), i * Tm))
        return tf.tensor2d(out, [part.length, Tm])
      }
      const ids = tf.tensor2d(mb.ids, [mb.batch, Tm], 'int32')
      const mask = tf.tensor2d(mb.actionMask, [mb.batch, Tm])
      const contextMask = config.contextCoef > 0 ? tf.tensor2d(contextMaskOf(mb), [mb.batch, Tm]) : undefined
      const oldLogprobs = pick(input.oldLogprobs)
      const advantages = pick(input.advantages)
      const returns = pick(input.returns)
      const ref = input.refLogprobs === undefined ? undefined : pick(input.refLogprobs)
      const oldValues = input.oldValues === undefined ? undefined : pick(input.oldValues)
      const policyTerms = (scores: Scoring.TokenScores, sampler: tf.Tensor2D | undefined): { loss: tf.Scalar; aux: Record<string, tf.Scalar> } => {
        const gap = sampler === undefined ? tf.scalar(Number.NaN) : Aggregation.maskedMean(tf.abs(tf.sub(scores.logprobs, sampler)), mask)
        const pg = policyLoss({ logprobs: scores.logprobs, oldLogprobs, advantages, mask })
        const entropy = Aggregation.maskedMean(scores.entropy, mask)
        const klLoss = klInLoss ? Aggregation.aggregate(config.aggregation)(Kl.estimate(config.kl.estimator)(scores.logprobs, ref!), mask) : tf.scalar(0)
        const contextLoss = contextMask === undefined ? tf.scalar(0) : tf.neg(Aggregation.maskedMean(scores.logprobs, contextMask))
        const loss = tf.add(tf.sub(tf.add(pg.loss, tf.mul(klLoss, context.klCoef)), tf.mul(entropy, config.entropyCoef)), tf.mul(contextLoss, config.contextCoef)) as tf.Scalar
        return { loss, aux: { policyLoss: pg.loss, clipFraction: pg.clipFraction, approxKl: pg.approxKl, klLoss, entropy, gap, contextLoss } }
      }
      const valueTerms = (values: tf.Tensor2D): { loss: tf.Scalar; aux: Record<string, tf.Scalar> } => {
        const out = ValueLoss.loss({ clip: config.valueClip, aggregation: config.aggregation })({ values: shiftRight(values), oldValues: oldValues!, returns, mask })
        return { loss: out.loss, aux: { valueLoss: out.loss, valueClipFraction: out.clipFraction } }
      }
      const recordPolicy = (aux: Readonly<Record<string, number>>, gradNorm: number, first: boolean): void => {
        if (first) m.samplerGap.push(aux['gap']!)
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
      const criticStep = critic !== undefined && context.criticOptimizer !== undefined && oldValues !== undefined ? { critic, optimizer: context.criticOptimizer } : undefined
      const first = m.policyLoss.length === 0
      const sampler = context.updatePolicy && first ? tf.tensor2d(mb.samplerLogprobs, [mb.batch, Tm]) : undefined
      if (context.updatePolicy && criticStep !== undefined && criticStep.critic.shareTrunk && criticStep.critic.policy === policy) {
        // A shared trunk: log-probs and values from one forward pass, one backward, each part's
        // gradients applied by its own optimizer at its own rate and clip. Without `valueCoef`
        // the values read the trunk through a stop-gradient, so the two parts are disjoint.
        const policyVariables = context.policyOptimizer.variables
        const { grads, aux } = Optimizer.gradients([...policyVariables, ...criticStep.optimizer.variables], () => {
          const toTrunk = config.valueCoef > 0
          const scores = Scoring.tokenLogprobsWithValues(policy, criticStep.critic, { entropy: true, valueGradient: toTrunk ? 'trunk' : 'head' })(ids, temperature)
          const p = policyTerms(scores, sampler)
          const v = valueTerms(scores.values)
          return { loss: tf.add(p.loss, toTrunk ? tf.mul(v.loss, config.valueCoef) : v.loss) as tf.Scalar, aux: { ...p.aux, ...v.aux } }
        })
        try {
          recordPolicy(aux, Optimizer.apply(context.policyOptimizer, { learningRate: context.policyLr, maxNorm: config.maxGradNorm }, grads.slice(0, policyVariables.length)), first)
          recordCritic(aux, Optimizer.apply(criticStep.optimizer, { learningRate: config.criticLr, maxNorm: config.maxGradNorm }, grads.slice(policyVariables.length)))
        } finally {
          tf.dispose(grads)
        }
      } else {
        if (context.updatePolicy) {
          const result = Optimizer.step(context.policyOptimizer, { learningRate: context.policyLr, maxNorm: config.maxGradNorm }, () =>
            policyTerms(Scoring.tokenLogprobs(policy, { entropy: true })(ids, temperature), sampler)
          )
          recordPolicy(result.aux, result.gradNorm, first)
        }
        if (criticStep !== undefined) {
          const result = Optimizer.step(criticStep.optimizer, { learningRate: config.criticLr, maxNorm: config.maxGradNorm }, () => valueTerms(Critic.values(criticStep.critic)(ids)))
          recordCritic(result.aux, result.gradNorm)
        }
      }
      sampler?.dispose()
      contextMask?.dispose()
      tf.dispose([ids, mask, oldLogprobs, advantages, returns, ...(ref ? [ref] : []), ...(oldValues ? [oldValues] : [])])
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
