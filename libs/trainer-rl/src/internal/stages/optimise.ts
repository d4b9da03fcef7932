/**
 * Stage 5 of an iteration, optimise: the minibatch updates (`../update.ts`) of the critic and,
 * after `criticWarmup` iterations, the policy, on the batch as the loss takes it (explored
 * tokens without a positive advantage leave the action mask under `exploredCredit: positive`),
 * weighted by the importance weights when a correction is on.
 */
import type { Batch } from '@mtrl/rollout'
import type { Trainer } from '../../Trainer.js'
import { trainingBatch } from '../explored.js'
import { update, type UpdateMetrics } from '../update.js'
import type { Estimated } from './estimate.js'
import type { Scored } from './score.js'

export interface Optimised {
  readonly updated: UpdateMetrics
  readonly seconds: number
}

export const optimise = (trainer: Trainer, batch: Batch.Batch, scored: Scored, estimated: Estimated, policyLr: number): Optimised => {
  const { setup, state, algorithm } = trainer
  const { config } = trainer
  const started = performance.now()
  const klInLoss = scored.klTokens !== undefined && config.kl.placement === 'loss'
  const correcting = scored.correction !== undefined && config.importanceSampling.mode !== 'off'
  const updated = update(
    {
      config,
      policy: setup.policy,
      critic: setup.critic,
      policyOptimizer: trainer.policyOptimizer,
      criticOptimizer: trainer.criticOptimizer,
      policyLr,
      updatePolicy: state.iteration >= config.critic.warmup || !algorithm.critic,
      klCoef: state.kl.coef,
      shuffle: state.shuffle,
      ...(setup.replicas === undefined ? {} : { replicas: setup.replicas })
    },
    {
      batch: trainingBatch(config.loss.exploredCredit, batch, scored.explored, estimated.advantages),
      oldLogprobs: scored.oldLogprobs,
      advantages: estimated.advantages,
      returns: estimated.returns,
      ...(scored.values ? { oldValues: scored.values } : {}),
      ...(klInLoss ? { refLogprobs: scored.refLogprobs! } : {}),
      ...(correcting ? { importanceWeights: scored.correction!.weights } : {})
    }
  )
  return { updated, seconds: (performance.now() - started) / 1000 }
}
