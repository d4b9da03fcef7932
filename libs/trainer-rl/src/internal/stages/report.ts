/**
 * Stage 6 of an iteration, report: the iteration's metrics (`../assemble.ts`) from what each
 * stage measured: means over the batch's action tokens (KL terms, the sampler gap, advantage
 * moments), the critic's explained variance, the update's losses; and the KL controller's step,
 * when a KL term is on.
 */
import type { Batch } from '@mtrl/rollout'
import * as KlController from '../../KlController.js'
import { explainedVariance, type Metrics } from '../../Metrics.js'
import type { Trainer } from '../../Trainer.js'
import { assemble } from '../assemble.js'
import type { Collected } from './collect.js'
import { replaySuccess } from './collect.js'
import type { Estimated } from './estimate.js'
import type { Optimised } from './optimise.js'
import type { Scored } from './score.js'
import type { Selected } from './select.js'

/** Means over the action tokens of the batch: KL terms, sampler gap, advantage moments. */
const tokenStats = (batch: Batch.Batch, scored: Scored, advantages: Float32Array) => {
  let count = 0
  let sampledCount = 0
  let gap = 0
  let kl = 0
  let prior = 0
  let sum = 0
  let squares = 0
  batch.actionMask.forEach((m, i) => {
    if (m !== 1) return
    count++
    if (scored.explored?.[i] !== 1) {
      sampledCount++
      gap += Math.abs(batch.samplerLogprobs[i]! - scored.oldLogprobs[i]!)
    }
    kl += scored.klTokens?.[i] ?? 0
    prior += scored.priorTokens?.[i] ?? 0
    sum += advantages[i]!
    squares += advantages[i]! ** 2
  })
  const mean = (x: number): number => (count === 0 ? Number.NaN : x / count)
  const advantageMean = mean(sum)
  return {
    gap: sampledCount === 0 ? Number.NaN : gap / sampledCount,
    klMean: scored.klTokens === undefined ? Number.NaN : mean(kl),
    priorKl: scored.priorTokens === undefined ? Number.NaN : mean(prior),
    advantageMean,
    advantageStd: count < 2 ? Number.NaN : Math.sqrt(Math.max(0, (squares - count * advantageMean ** 2) / (count - 1)))
  }
}

/** What every iteration reports, trained or not. */
export interface Base {
  readonly collected: Collected
  readonly selected: Selected
  readonly policyLr: number
  /** Seconds the iteration waited for its episodes (less than the rollout's when it was played ahead). */
  readonly waited: number
}

const baseOf = (trainer: Trainer, base: Base) => ({
  iteration: trainer.state.iteration,
  rollout: base.collected.rollout,
  outcomes: base.selected.outcomes,
  episodes: base.collected.episodes.map((e) => e.trajectory),
  filtered: base.selected.filtered,
  replayed: base.collected.drawn.replays.filter((r) => r > 0).length,
  replaySuccess: replaySuccess(base.collected.drawn, base.collected.episodes),
  rolloutSeconds: base.collected.seconds,
  waitSeconds: base.waited,
  staleness: trainer.state.iteration - base.collected.version,
  policyLr: base.policyLr
})

/** The metrics of an iteration that kept no episode (nothing to update). */
export const reportIdle = (trainer: Trainer, base: Base, seconds: number): Metrics =>
  assemble(baseOf(trainer, base), undefined, seconds, trainer.config.kl.placement === 'none' ? undefined : trainer.state.kl)

/** The metrics of an updated iteration; steps the KL controller when a KL term is on. `seconds`: since the rollout ended. */
export const report = (
  trainer: Trainer,
  base: Base,
  batch: Batch.Batch,
  scored: Scored,
  estimated: Estimated,
  optimised: Optimised,
  seconds: number
): Metrics => {
  const { config } = trainer
  const { updated } = optimised
  const stats = {
    updated,
    ...tokenStats(batch, scored, estimated.advantages),
    ...(scored.exact ? { gap: updated.samplerGap } : {}),
    ...(scored.correction === undefined ? {} : { mismatch: scored.correction.mismatch }),
    explainedVariance: scored.values === undefined ? Number.NaN : explainedVariance(scored.values, estimated.returns, batch.actionMask),
    samples: base.selected.samples.length,
    updateTokensPerSecond: (batch.lengths.reduce((a, b) => a + b, 0) * config.update.epochs) / Math.max(optimised.seconds, 1e-9)
  }
  const klOn = scored.klTokens !== undefined
  if (klOn) trainer.state.kl = KlController.update(stats.klMean, base.selected.samples.length)(trainer.state.kl)
  return assemble(baseOf(trainer, base), stats, seconds, klOn ? trainer.state.kl : undefined)
}
