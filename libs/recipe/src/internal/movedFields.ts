/**
 * The RL stage's flat configuration fields (before 0.6) and where they went in the nested one:
 * a recipe that still uses one gets an error that names the new place.
 */
import type { Decode } from '@mtrl/core'

/** Where the fields of an RL stage's flat configuration (before 0.6) went in the nested one. */
export const movedFields: Readonly<Record<string, string>> = {
  seedsPerIteration: 'budget.seedsPerIteration',
  groupSize: 'budget.groupSize',
  filterZeroVariance: 'selection.filterZeroVariance',
  oversample: 'selection.oversample',
  keepPerGroup: 'selection.keepPerGroup',
  estimator: 'advantage.estimator',
  estimatorOptions: 'advantage.options',
  truncation: 'advantage.truncation',
  clipLow: 'loss.options.clipLow',
  clipHigh: 'loss.options.clipHigh',
  dualClip: 'loss.options.dualClip',
  aggregation: 'loss.aggregation',
  entropyCoef: 'loss.entropyCoef',
  contextCoef: 'loss.contextCoef',
  exploredCredit: 'loss.exploredCredit',
  policyLr: 'policy.lr',
  warmupIterations: 'policy.warmupIterations',
  minLrRatio: 'policy.minLrRatio',
  decayIterations: 'policy.decayIterations',
  criticLr: 'critic.lr',
  criticWarmup: 'critic.warmup',
  valueClip: 'critic.valueClip',
  valueCoef: 'critic.valueCoef',
  ppoEpochs: 'update.epochs',
  minibatches: 'update.minibatches',
  microBatchTokens: 'update.microBatchTokens',
  maxGradNorm: 'update.maxGradNorm'
}

/** The policy loss's clip fields (before 0.7), now the loss's own options. */
const lossOptions = /^(stages\.\d+)\.loss\.(clipLow|clipHigh|dualClip)$/

/** An unknown field of an RL stage that the nested configuration moved says where it is now. */
export const withMoves = (error: Decode.DecodeError): Decode.DecodeError => ({
  ...error,
  issues: error.issues.map((issue) => {
    const option = lossOptions.exec(issue.path)
    if (option !== null && issue.message?.startsWith('unknown field') === true)
      return { ...issue, message: `unknown field: the policy loss's clip is one of its options; this is now "${option[1]}.loss.options.${option[2]}"` }
    const flat = /^(stages\.\d+)\.(\w+)$/.exec(issue.path)
    const moved = flat === null || issue.message?.startsWith('unknown field') !== true ? undefined : movedFields[flat[2]!]
    return moved === undefined
      ? issue
      : { ...issue, message: `unknown field: the RL stage's configuration is nested by stage of the iteration; this is now "${flat![1]}.${moved}"` }
  })
})
