/**
 * The update's losses on one shard of a minibatch, in the form that shards add up: each token
 * term is a weighted sum with the whole minibatch's weights (`Aggregation.weights`), so the
 * losses, gradients and metrics of the shards of a minibatch sum to the minibatch's. The
 * calling thread and the data-parallel replicas (./updateTask.ts) run the same functions.
 */
import { Critic, Scoring, type Policy } from '@mtrl/policy'
import * as tf from '@tensorflow/tfjs'
import { weighted } from '../Aggregation.js'
import * as Kl from '../Kl.js'
import * as PolicyLoss from '../PolicyLoss.js'
import * as ValueLoss from '../ValueLoss.js'
import { shiftRight } from './forward.js'

/** What a run's losses are (constant over the run). */
export interface LossSettings {
  readonly temperature: number
  /** The policy loss by name and its options: the replicas look it up in `PolicyLoss.registry`. */
  readonly policyLoss: PolicyLoss.Spec
  readonly valueClip: number | null
  readonly entropyCoef: number
  readonly contextCoef: number
  /** The KL estimator of a KL term in the loss; undefined: none. */
  readonly klInLoss: Kl.Estimator | undefined
  /** Gradient checkpointing of the policy's scoring (`Config.Update.recompute`). */
  readonly recompute: boolean
}

/** Rows of a minibatch, right-padded to their longest, row-major [rows, time]. */
interface Rows {
  readonly rows: number
  readonly time: number
  readonly ids: Int32Array
}

/**
 * A policy shard. `weights`: the policy loss's aggregation weights; `meanWeights`: a token
 * mean over the minibatch's action tokens (metrics, entropy); `contextWeights`: a token mean over
 * its prompt and observation tokens (the context loss).
 */
export interface PolicyShard extends Rows {
  readonly oldLogprobs: Float32Array
  readonly advantages: Float32Array
  readonly weights: Float32Array
  /** The policy-gradient term's weights when they differ from `weights` (importance-weighted). */
  readonly pgWeights?: Float32Array
  readonly meanWeights: Float32Array
  readonly contextWeights?: Float32Array
  readonly refLogprobs?: Float32Array
  /** The sampler's log-probs, to measure their gap to the trainer's (first minibatch only). */
  readonly samplerLogprobs?: Float32Array
  /** Per row, the constrained positions and their masks: scored under them (`Scoring`'s `allowed`). */
  readonly allowed?: Scoring.Options['allowed']
}

/** A critic shard: `weights` aggregate the value loss, `meanWeights` its clip fraction. */
export interface ValueShard extends Rows {
  readonly oldValues: Float32Array
  readonly returns: Float32Array
  readonly weights: Float32Array
  readonly meanWeights: Float32Array
}

/**
 * A shard cut into micro-batches of at most `maxTokens` tokens (rows x width; one row per
 * micro-batch when a row is longer): consecutive rows, every `[rows, time]` array cut with them.
 * The weights are the whole minibatch's, so the micro-batches' losses and metrics add up to the
 * shard's (gradient accumulation, verl's micro-batch per device); causal scoring of a row is
 * unchanged by its neighbours. A shard within the budget comes back alone.
 */
export const microShards =
  (maxTokens: number) =>
  <S extends Rows>(shard: S): S[] => {
    const per = Math.max(1, Math.floor(maxTokens / shard.time))
    if (per >= shard.rows) return [shard]
    const out: S[] = []
    for (let start = 0; start < shard.rows; start += per) {
      const rows = Math.min(per, shard.rows - start)
      const from = start * shard.time
      const to = from + rows * shard.time
      const cut = Object.fromEntries(
        Object.entries(shard).map(([k, v]) => [
          k,
          v instanceof Float32Array || v instanceof Int32Array ? v.slice(from, to) : Array.isArray(v) ? v.slice(start, start + rows) : v
        ])
      )
      out.push({ ...cut, rows } as S)
    }
    return out
  }

type Terms = { readonly loss: tf.Scalar; readonly aux: Record<string, tf.Scalar> }

const matrix = (shard: Rows, data: Float32Array): tf.Tensor2D => tf.tensor2d(data, [shard.rows, shard.time])

export const idsOf = (shard: Rows): tf.Tensor2D => tf.tensor2d(shard.ids, [shard.rows, shard.time], 'int32')

/**
 * The policy's terms from its scores, each a weighted sum with the minibatch's weights:
 *
 * ```
 * loss = sum(w_pg L) + klCoef sum(w KL) - entropyCoef sum(w_mean H) + contextCoef (-sum(w_ctx log p))
 * ```
 *
 * `L` is the settings' policy loss per token (`PolicyLoss.perToken`), `w_pg` the shard's
 * aggregation weights times its importance weights when it has them; KL only with reference
 * log-probs and an in-loss estimator. The metrics `policyLoss`, `clipFraction`, `approxKl`,
 * `klLoss`, `entropy`, `contextLoss`, `gap` (when the shard has sampler log-probs) are each the
 * shard's share of the minibatch's. The caller owns the scalars.
 */
export const policyTerms = (settings: LossSettings, klCoef: number, shard: PolicyShard, scores: Scoring.TokenScores): Terms =>
  tf.tidy(() => {
    const w = matrix(shard, shard.weights)
    const mean = matrix(shard, shard.meanWeights)
    const tokens = PolicyLoss.perToken(settings.policyLoss)({
      logprobs: scores.logprobs,
      oldLogprobs: matrix(shard, shard.oldLogprobs),
      advantages: matrix(shard, shard.advantages),
      // the action tokens: where the token mean's weights are positive
      mask: tf.cast(tf.greater(mean, 0), 'float32')
    })
    const policyLoss = weighted(tokens.loss, shard.pgWeights === undefined ? w : matrix(shard, shard.pgWeights))
    const entropy = weighted(scores.entropy, mean)
    const klLoss =
      settings.klInLoss === undefined || shard.refLogprobs === undefined
        ? tf.scalar(0)
        : weighted(Kl.estimate(settings.klInLoss)(scores.logprobs, matrix(shard, shard.refLogprobs)), w)
    const contextLoss = shard.contextWeights === undefined ? tf.scalar(0) : tf.neg(weighted(scores.logprobs, matrix(shard, shard.contextWeights)))
    const loss = tf.addN([policyLoss, tf.mul(klLoss, klCoef), tf.mul(entropy, -settings.entropyCoef), tf.mul(contextLoss, settings.contextCoef)]) as tf.Scalar
    const aux: Record<string, tf.Scalar> = {
      policyLoss,
      clipFraction: weighted(tokens.clipped, mean),
      approxKl: weighted(tokens.negLogRatio, mean),
      klLoss,
      entropy,
      contextLoss
    }
    if (shard.samplerLogprobs !== undefined) aux['gap'] = weighted(tf.abs(tf.sub(scores.logprobs, matrix(shard, shard.samplerLogprobs))), mean)
    return { loss, aux }
  })

/** The critic's terms from its values `V(h_t)` (read one token earlier): the clipped value loss and its clip fraction. */
export const valueTerms = (settings: LossSettings, shard: ValueShard, values: tf.Tensor2D): Terms =>
  tf.tidy(() => {
    const tokens = ValueLoss.perToken({ clip: settings.valueClip })({
      values: shiftRight(values),
      oldValues: matrix(shard, shard.oldValues),
      returns: matrix(shard, shard.returns)
    })
    const valueLoss = weighted(tokens.loss, matrix(shard, shard.weights))
    return { loss: valueLoss, aux: { valueLoss, valueClipFraction: weighted(tokens.clipped, matrix(shard, shard.meanWeights)) } }
  })

/** The scoring options of a shard: entropies, and its constrained positions' masks. */
export const scoringOf = (shard: PolicyShard, settings: LossSettings): Scoring.Options => ({
  entropy: true,
  // without an entropy bonus the entropy is a metric: no gradient (a frozen head's work a third less)
  entropyGradient: settings.entropyCoef !== 0,
  recompute: settings.recompute,
  ...(shard.allowed === undefined ? {} : { allowed: shard.allowed })
})

/** The policy's loss on a shard (it scores the shard itself). */
export const policyLoss = (policy: Policy.Policy, settings: LossSettings, klCoef: number, shard: PolicyShard): Terms =>
  tf.tidy(() => policyTerms(settings, klCoef, shard, Scoring.tokenLogprobs(policy, scoringOf(shard, settings))(idsOf(shard), settings.temperature)))

/** The critic's loss on a shard. */
export const valueLoss = (critic: Critic.Critic, settings: LossSettings, shard: ValueShard): Terms =>
  tf.tidy(() => valueTerms(settings, shard, Critic.values(critic)(idsOf(shard))))
