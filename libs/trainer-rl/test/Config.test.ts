import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as Algorithm from '../src/Algorithm.js'
import * as _ from '../src/Config.js'

describe('Config', () => {
  it('the default configuration survives JSON and strict decoding', () => {
    const decoded = Decode.decodeStrict('trainer', _.Config)(JSON.parse(JSON.stringify(_.defaultConfig)))
    expect(decoded).toEqual(E.right(_.defaultConfig))
  })
  it('names a misspelt or invalid field', () => {
    const typo = Decode.decodeStrict('trainer', _.Config)({ ...JSON.parse(JSON.stringify(_.defaultConfig)), clipHihg: 0.3 })
    expect(E.isLeft(typo) && Decode.formatError(typo.left)).toContain('clipHihg')
    const bad = Decode.decodeStrict('trainer', _.Config)({ ...JSON.parse(JSON.stringify(_.defaultConfig)), aggregation: 'mean' })
    expect(E.isLeft(bad) && Decode.formatError(bad.left)).toContain('aggregation')
  })
  it('every algorithm is registered under its own name', () => {
    for (const name of Algorithm.names) expect(Algorithm.registry[name].name).toBe(name)
    expect(Algorithm.names).toEqual(['ppo', 'grpo', 'grpo-token-mean', 'dr-grpo', 'rloo', 'reinforce++'])
  })
  it('refines its numbers: a negative group, a zero learning rate, a dual clip of 1 are rejected with their field', () => {
    const json = JSON.parse(JSON.stringify(_.defaultConfig))
    const message = (patch: object): string => {
      const r = Decode.decodeStrict('trainer', _.Config)({ ...json, ...patch })
      return E.isLeft(r) ? Decode.formatError(r.left) : 'decoded'
    }
    expect(message({ groupSize: -4 })).toContain('groupSize: expected a positive integer, got -4')
    expect(message({ policyLr: 0 })).toContain('policyLr: expected a positive number, got 0')
    expect(message({ dualClip: 1 })).toContain('dualClip')
    expect(message({ minibatches: 1.5 })).toContain('minibatches')
    expect(message({ dualClip: null, valueClip: null })).toBe('decoded')
  })
  it('check: the estimator options decode up front, with their path; grouped algorithms need groups', () => {
    expect(_.check(_.defaultConfig)).toEqual(E.right(_.defaultConfig))
    const gamma = _.check({ ..._.defaultConfig, estimatorOptions: { gamma: 2 } })
    expect(E.isLeft(gamma) && Decode.formatError(gamma.left)).toMatch(/estimatorOptions\.gamma: expected .*, got 2/)
    const typo = _.check({ ..._.defaultConfig, estimatorOptions: { lamda: 0.9 } })
    expect(E.isLeft(typo) && Decode.formatError(typo.left)).toContain('lamda')
    const lonely = _.check({ ..._.defaultConfig, algorithm: 'grpo', groupSize: 1 })
    expect(E.isLeft(lonely) && Decode.formatError(lonely.left)).toContain('groupSize: expected at least 2 for grpo')
    expect(E.isRight(_.check({ ..._.defaultConfig, algorithm: 'reinforce++', groupSize: 1 }))).toBe(true)
  })
})
