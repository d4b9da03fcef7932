/**
 * Stage 4 of an iteration, estimate: the advantages and returns of every action token, from the
 * kept episodes' rewards (and the KL penalty, for a KL in the reward, and the critic's values),
 * with the samples of each episode linked into one estimator row (`../link.ts`).
 */
import { Estimator } from '@mtrl/advantages'
import type { Batch } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import type * as Config from '../../Config.js'
import type { Trainer } from '../../Trainer.js'
import { bootstraps, link } from '../link.js'
import type { Scored } from './score.js'
import type { Selected } from './select.js'

export interface Estimated {
  readonly advantages: Float32Array
  readonly returns: Float32Array
}

const estimatorOf = (config: Config.Resolved) => {
  const configured = Estimator.configure(config.advantage.estimator)(config.advantage.options)
  if (E.isLeft(configured)) throw new Error(`Trainer: ${configured.left.subject}: ${configured.left.issues.map((i) => `${i.path}: ${i.expected}`).join('; ')}`)
  return configured.right
}

export const estimate = (trainer: Trainer, batch: Batch.Batch, selected: Selected, scored: Scored): Estimated => {
  const { config } = trainer
  let rowAt = 0
  const episodes = selected.kept.map(({ episode, index }) => {
    const rows = episode.samples.map(() => rowAt++)
    return { rows, turnRewards: selected.turnRewards[index]!, groupId: episode.trajectory.groupId, bootstrap: bootstraps(config.advantage, episode) }
  })
  return link(
    {
      batch,
      samples: selected.samples,
      episodes,
      ...(scored.tokenPenalty ? { tokenPenalty: scored.tokenPenalty } : {}),
      ...(scored.values ? { values: scored.values } : {}),
      ...(scored.valuesAfter ? { valuesAfter: scored.valuesAfter } : {})
    },
    estimatorOf(config)
  )
}
