/**
 * Stage 3 of an iteration, score: what the estimate and the update read besides the tokens.
 *
 * - Behaviour log-probs `pi_old`: without top-k / top-p, exploration moves and an
 *   importance-sampling correction, the sampler's log-probs are the policy's own (same forward,
 *   same temperature; `logprob/sampler_trainer_gap` checks it on the first minibatch), so no
 *   second forward pass is needed. Otherwise the policy scores the batch, and the sampler's
 *   distance to it is measured (and, when `importanceSampling` is on, corrected);
 * - the reference's log-probs, when a KL term is on or the `kl/prior` drift is due, and the
 *   per-token KL (and the reward penalty, for a KL in the reward);
 * - the critic's values, for algorithms with a critic.
 */
import type { Batch } from '@mtrl/rollout'
import * as ImportanceSampling from '../../ImportanceSampling.js'
import * as Kl from '../../Kl.js'
import type { Trainer } from '../../Trainer.js'
import * as forward from '../forward.js'

export interface Scored {
  readonly oldLogprobs: Float32Array
  /** Whether `oldLogprobs` are the sampler's own (no trainer forward pass was made). */
  readonly exact: boolean
  /** 1 on the action tokens of exploration moves; none without any. */
  readonly explored: Float32Array | undefined
  /** When the trainer scored the batch: the importance weights and the mismatch. */
  readonly correction: ImportanceSampling.Correction | undefined
  readonly refLogprobs: Float32Array | undefined
  /** The KL term's per-token estimate (none without a KL term). */
  readonly klTokens: Float32Array | undefined
  /** k3 KL to the reference per token, for `kl/prior` (none without a reference pass). */
  readonly priorTokens: Float32Array | undefined
  /** `-coef x KL` per token, for a KL in the reward. */
  readonly tokenPenalty: Float32Array | undefined
  /** V of the state each token is sampled in, and V after each token (bootstraps). */
  readonly values: Float32Array | undefined
  readonly valuesAfter: Float32Array | undefined
}

export const score = (trainer: Trainer, batch: Batch.Batch, explored: Float32Array | undefined): Scored => {
  const { setup, state, algorithm } = trainer
  const { config } = trainer
  const temperature = config.rollout.temperature
  const exact = config.rollout.topK === undefined && config.rollout.topP === undefined && explored === undefined && config.importanceSampling.mode === 'off'
  const oldLogprobs = exact ? batch.samplerLogprobs : forward.logprobs(setup.policy, batch, temperature)
  // the sampled action tokens (not explored moves), where the sampler's distance is measured
  const sampled = (): Float32Array => batch.actionMask.map((m, i) => (m === 1 && explored?.[i] !== 1 ? 1 : 0))
  const correction = exact
    ? undefined
    : ImportanceSampling.correct(config.importanceSampling)({
        rows: batch.batch,
        time: batch.time,
        sampled: sampled(),
        trainerLogprobs: oldLogprobs,
        samplerLogprobs: batch.samplerLogprobs
      })
  const klNeeded = config.kl.placement !== 'none'
  const driftNow = config.priorKlEvery > 0 && state.iteration % config.priorKlEvery === 0
  const refLogprobs = setup.reference === undefined || (!klNeeded && !driftNow) ? undefined : forward.logprobs(setup.reference, batch, temperature)
  const klOn = klNeeded && refLogprobs !== undefined
  const klTokens = klOn ? Kl.estimateArray(config.kl.estimator)(oldLogprobs, refLogprobs) : undefined
  const priorTokens =
    refLogprobs === undefined ? undefined : config.kl.estimator === 'k3' && klTokens !== undefined ? klTokens : Kl.estimateArray('k3')(oldLogprobs, refLogprobs)
  const tokenPenalty = klTokens !== undefined && config.kl.placement === 'reward' ? klTokens.map((k) => -state.kl.coef * k) : undefined
  const valuesAfter = algorithm.critic && setup.critic !== undefined ? forward.valuesAfter(setup.critic, batch) : undefined
  const values = valuesAfter === undefined ? undefined : forward.valuesBefore(valuesAfter, batch)
  return { oldLogprobs, exact, explored, correction, refLogprobs, klTokens, priorTokens, tokenPenalty, values, valuesAfter }
}
