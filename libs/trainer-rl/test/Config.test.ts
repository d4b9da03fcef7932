import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as Algorithm from '../src/Algorithm.js'
import * as _ from '../src/Config.js'

/** The configuration decoded from its JSON, as a recipe's is: the error message, or 'decoded'. */
const message = (config: unknown): string => {
  const r = Decode.decodeStrict('trainer', _.Config)(JSON.parse(JSON.stringify(config)))
  return E.isLeft(r) ? Decode.formatError(r.left) : 'decoded'
}

describe('Config', () => {
  it('the default configuration survives JSON and strict decoding', () => {
    const decoded = Decode.decodeStrict('trainer', _.Config)(JSON.parse(JSON.stringify(_.defaultConfig)))
    expect(decoded).toEqual(E.right(_.defaultConfig))
  })

  it('names a misspelt or invalid field by its path in its slice', () => {
    expect(message({ ..._.defaultConfig, loss: { ..._.defaultConfig.loss, entropyCoeff: 0.3 } })).toContain(
      'loss.entropyCoeff: unknown field (did you mean "entropyCoef"?)'
    )
    // the policy loss's options, by the loss's own codec
    expect(message(_.make({ loss: { options: { clipHihg: 0.3 } } }))).toContain('loss.options.clipHihg: unknown field (did you mean "clipHigh"?)')
    expect(message(_.make({ algorithm: 'grpo', loss: { options: { dualClip: 3 } } }))).toContain('loss.options.dualClip: unknown field')
    expect(message(_.make({ algorithm: 'gspo', loss: { options: { clipLow: -1 } } }))).toContain('loss.options.clipLow: expected a non-negative number, got -1')
    expect(message({ ..._.defaultConfig, loss: { ..._.defaultConfig.loss, aggregation: 'mean' } })).toContain('loss.aggregation')
    // a field of the old flat form is unknown at the top
    expect(message({ ..._.defaultConfig, policyLr: 1e-3 })).toContain('policyLr: unknown field')
  })

  it('every algorithm is registered under its own name', () => {
    for (const name of Algorithm.names) expect(Algorithm.registry[name].name).toBe(name)
    expect(Algorithm.names).toEqual(['ppo', 'grpo', 'grpo-token-mean', 'dr-grpo', 'rloo', 'reinforce++', 'gspo', 'cispo'])
  })

  it('refines its numbers: a negative group, a zero learning rate, a dual clip of 1 are rejected with their field', () => {
    expect(message(_.make({ budget: { groupSize: -4 } }))).toContain('budget.groupSize: expected a positive integer, got -4')
    expect(message(_.make({ policy: { lr: 0 } }))).toContain('policy.lr: expected a positive number, got 0')
    expect(message(_.make({ loss: { options: { dualClip: 1 } } }))).toContain('loss.options.dualClip: expected')
    expect(message(_.make({ update: { minibatches: 1.5 } }))).toContain('update.minibatches')
    expect(message(_.make({ loss: { options: { dualClip: null } }, critic: { valueClip: null } }))).toBe('decoded')
  })

  it('the rules inside a slice name their field: oversampling needs the filter, a decay needs room after the warm-up', () => {
    expect(message(_.make({ selection: { oversample: 2 } }))).toBe(
      'invalid trainer:\n  selection.oversample: expected 1 unless filterZeroVariance is on (extra groups are played to replace the filtered ones), got 2'
    )
    expect(message(_.make({ selection: { oversample: 2, filterZeroVariance: true } }))).toBe('decoded')
    expect(message(_.make({ policy: { minLrRatio: 0.1, warmupIterations: 3, decayIterations: 3 } }))).toContain(
      'policy.decayIterations: expected more than warmupIterations (3)'
    )
    expect(message(_.make({ policy: { minLrRatio: 0.1, warmupIterations: 3, decayIterations: 4 } }))).toBe('decoded')
    expect(message(_.make({ policy: { minLrRatio: 1, warmupIterations: 3, decayIterations: 0 } }))).toBe('decoded')
  })

  it('the rules across slices name their field: the estimator options, groups for a group-relative algorithm, the kept episodes, the temperature', () => {
    expect(message(_.make({ advantage: { options: { gamma: 2 } } }))).toMatch(/advantage\.options\.gamma: expected .*, got 2/)
    expect(message(_.make({ advantage: { options: { lamda: 0.9 } } }))).toContain('advantage.options.lamda')
    expect(message(_.make({ algorithm: 'grpo', budget: { groupSize: 1 } }))).toContain('budget.groupSize: expected at least 2 for grpo')
    expect(message(_.make({ algorithm: 'reinforce++', budget: { groupSize: 1 } }))).toBe('decoded')
    expect(message(_.make({ algorithm: 'rloo', budget: { groupSize: 4 }, selection: { keepPerGroup: 1 } }))).toContain(
      'selection.keepPerGroup: expected at most budget.groupSize (4) and at least 2 for rloo'
    )
    expect(message(_.make({ budget: { groupSize: 4 }, selection: { keepPerGroup: 5 } }))).toContain(
      'selection.keepPerGroup: expected at most budget.groupSize (4)'
    )
    expect(message(_.make({ budget: { groupSize: 4 }, selection: { keepPerGroup: 2 } }))).toBe('decoded')
    expect(message(_.make({ rollout: { temperature: 0 } }))).toContain('rollout.temperature: expected a number > 0')
  })

  it('override changes only the fields it names, slice by slice; kl is replaced whole', () => {
    const changed = _.override({ algorithm: 'grpo', policy: { lr: 3e-4 }, budget: { groupSize: 2 }, kl: null })(_.defaultConfig)
    expect(changed).toEqual({
      ..._.defaultConfig,
      algorithm: 'grpo',
      policy: { ..._.defaultConfig.policy, lr: 3e-4 },
      budget: { ..._.defaultConfig.budget, groupSize: 2 },
      kl: null
    })
    expect(_.make({})).toEqual(_.defaultConfig)
  })

  it('resolve fills the algorithm choices the configuration leaves null', () => {
    const grpo = _.resolve(_.make({ algorithm: 'grpo' }))
    expect(grpo.loss.aggregation).toBe('seq-mean-token-mean')
    expect(grpo.kl.placement).toBe('loss')
    expect(grpo.advantage.estimator).toBe('grpo')
    const dr = _.resolve(_.make({ algorithm: 'dr-grpo', advantage: { options: { epsilon: 1e-3 } } }))
    expect(dr.advantage.options).toEqual({ normalizeByStd: false, epsilon: 1e-3 })
    expect(_.resolve(_.make({ algorithm: 'grpo', loss: { aggregation: 'token-mean' } })).loss.aggregation).toBe('token-mean')
  })
})
