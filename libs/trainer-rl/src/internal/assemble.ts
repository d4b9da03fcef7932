/**
 * The metrics record of one iteration, from the rollout metrics and the update's statistics.
 */
import type { Rollout } from '@mtrl/rollout'
import type * as ImportanceSampling from '../ImportanceSampling.js'
import type * as KlController from '../KlController.js'
import type { Metrics } from '../Metrics.js'
import type { UpdateMetrics } from './update.js'

export const assemble = (
  base: {
    readonly iteration: number
    readonly rollout: Rollout.Result['metrics']
    readonly outcomes: ReadonlyArray<number>
    readonly episodes: ReadonlyArray<{ readonly turns: ReadonlyArray<unknown> }>
    readonly filtered: number
    readonly replayed: number
    readonly replaySuccess: number
    readonly rolloutSeconds: number
    readonly policyLr: number
  },
  stats:
    | {
        readonly updated: UpdateMetrics
        readonly klMean: number
        readonly priorKl: number
        readonly gap: number
        /** When the trainer scored the batch: how far the sampler was from it. */
        readonly mismatch?: ImportanceSampling.Mismatch
        readonly explainedVariance: number
        readonly advantageMean: number
        readonly advantageStd: number
        readonly samples: number
        readonly updateTokensPerSecond: number
      }
    | undefined,
  updateSeconds: number,
  /** The KL controller when a KL term is on (its coefficient is logged), else undefined. */
  kl: KlController.KlController | undefined
): Metrics => {
  const r = base.rollout
  const u = stats?.updated
  return {
    iteration: base.iteration,
    'loss/policy': u?.policyLoss ?? Number.NaN,
    'loss/value': u?.valueLoss ?? Number.NaN,
    'loss/context': u?.contextLoss ?? Number.NaN,
    'kl/mean': stats?.klMean ?? Number.NaN,
    'kl/coef': kl?.coef ?? Number.NaN,
    'kl/prior': stats?.priorKl ?? Number.NaN,
    'kl/policy_change': u?.approxKl ?? Number.NaN,
    'clip/fraction': u?.clipFraction ?? Number.NaN,
    'clip/value_fraction': u?.valueClipFraction ?? Number.NaN,
    'entropy/mean': u?.entropy ?? Number.NaN,
    'grad/policy_norm': u?.policyGradNorm ?? Number.NaN,
    'grad/critic_norm': u?.criticGradNorm ?? Number.NaN,
    'value/explained_variance': stats?.explainedVariance ?? Number.NaN,
    'advantage/mean': stats?.advantageMean ?? Number.NaN,
    'advantage/std': stats?.advantageStd ?? Number.NaN,
    'episode/success_rate': r.successRate,
    'episode/return': base.outcomes.reduce((a, b) => a + b, 0) / Math.max(1, base.outcomes.length),
    'episode/turns': r.turnsMean,
    'episode/invalid_rate': r.invalidRate,
    'episode/format_error_rate': r.formatErrorRate,
    'episode/truncated_rate': r.truncatedRate,
    'episode/action_hacking_rate': r.actionHackingRate,
    'episode/explored_rate': r.exploredRate,
    'batch/samples': stats?.samples ?? 0,
    'batch/filtered_episodes': base.filtered,
    'replay/games': base.replayed,
    'replay/success_rate': base.replaySuccess,
    'logprob/sampler_trainer_gap': stats?.gap ?? Number.NaN,
    'mismatch/kl': stats?.mismatch?.kl ?? Number.NaN,
    'mismatch/max_ratio': stats?.mismatch?.maxRatio ?? Number.NaN,
    'mismatch/corrected_fraction': stats?.mismatch?.correctedFraction ?? Number.NaN,
    'lr/policy': base.policyLr,
    'perf/tokens_per_s': r.tokensPerSecond,
    'perf/update_tokens_per_s': stats?.updateTokensPerSecond ?? Number.NaN,
    'time/rollout_s': base.rolloutSeconds,
    'time/update_s': updateSeconds
  }
}
