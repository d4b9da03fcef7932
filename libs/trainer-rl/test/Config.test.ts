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
    expect(Algorithm.names).toEqual(['ppo', 'grpo', 'rloo', 'reinforce++'])
  })
})
