/**
 * The metrics record of one iteration, from the rollout metrics and the update's statistics.
 */
import type { Rollout } from '@mtrl/rollout'
import type * as ImportanceSampling from '../ImportanceSampling.js'
import type * as KlController from '../KlController.js'
import type { Metrics } from '../Metrics.js'
import type { UpdateMetrics } from './update.js'

/** The iteration's own figures: its episodes, what was kept, the replays, the rollout's speed. */
export interface Base {
  readonly iteration: number
  readonly rollout: Rollout.Result['metrics']
  readonly outcomes: ReadonlyArray<number>
  readonly episodes: ReadonlyArray<{ readonly turns: ReadonlyArray<unknown> }>
  readonly filtered: number
  readonly replayed: number
  readonly replaySuccess: number
  readonly rolloutSeconds: number
  readonly waitSeconds: number
  readonly staleness: number
  readonly policyLr: number
}

/** What an update measured (undefined: no update this iteration). */
export interface Stats {
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

/** Losses, KL, clipping, entropy, gradients, critic and advantages: NaN without an update. */
const learning = (stats: Stats | undefined, kl: KlController.KlController | undefined) => {
  const u = stats?.updated
  return {
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
    'advantage/std': stats?.advantageStd ?? Number.NaN
  } satisfies Partial<Metrics>
}

/** The episodes played: success, return, turns and the rates of what went wrong. */
const episodes = (base: Base) => {
  const r = base.rollout
  return {
    'episode/success_rate': r.successRate,
    'episode/return': base.outcomes.reduce((a, b) => a + b, 0) / Math.max(1, base.outcomes.length),
    'episode/turns': r.turnsMean,
    'episode/invalid_rate': r.invalidRate,
    'episode/format_error_rate': r.formatErrorRate,
    'episode/truncated_rate': r.truncatedRate,
    'episode/action_hacking_rate': r.actionHackingRate,
    'episode/explored_rate': r.exploredRate
  } satisfies Partial<Metrics>
}

/** The batch, the replays, the sampler's distance to the trainer, the learning rate, speed and time. */
const bookkeeping = (base: Base, stats: Stats | undefined, updateSeconds: number) =>
  ({
    'batch/samples': stats?.samples ?? 0,
    'batch/filtered_episodes': base.filtered,
    'replay/games': base.replayed,
    'replay/success_rate': base.replaySuccess,
    'logprob/sampler_trainer_gap': stats?.gap ?? Number.NaN,
    'mismatch/kl': stats?.mismatch?.kl ?? Number.NaN,
    'mismatch/max_ratio': stats?.mismatch?.maxRatio ?? Number.NaN,
    'mismatch/corrected_fraction': stats?.mismatch?.correctedFraction ?? Number.NaN,
    'lr/policy': base.policyLr,
    'perf/tokens_per_s': base.rollout.tokensPerSecond,
    'perf/update_tokens_per_s': stats?.updateTokensPerSecond ?? Number.NaN,
    'rollout/staleness': base.staleness,
    'time/rollout_s': base.rolloutSeconds,
    'time/wait_s': base.waitSeconds,
    'time/update_s': updateSeconds
  }) satisfies Partial<Metrics>

/** The metrics record of an iteration. `kl`: the KL controller when a KL term is on (its coefficient is logged). */
export const assemble = (base: Base, stats: Stats | undefined, updateSeconds: number, kl: KlController.KlController | undefined): Metrics => ({
  iteration: base.iteration,
  ...learning(stats, kl),
  ...episodes(base),
  ...bookkeeping(base, stats, updateSeconds)
})
