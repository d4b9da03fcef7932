import { RewardFn } from '@mtrl/core'
import { describe, expect, it } from 'vitest'
import * as Outcome from '../src/Outcome.js'
import * as _ from '../src/Penalty.js'
import { episode } from './fixtures.js'

const trajectory = episode([{ reward: 0, valid: false }, { reward: 0, parsed: false, valid: false }, { reward: 1 }], { won: true })

describe('Penalty', () => {
  it('subtracts p on invalid actions, on unparsed replies, and c on every turn', () => {
    expect(_.invalidActionPenalty(0.5)(trajectory)).toEqual([-0.5, -0.5, 0])
    expect(_.formatPenalty(0.25)(trajectory)).toEqual([0, -0.25, 0])
    expect(_.turnCost(0.125)(trajectory)).toEqual([-0.125, -0.125, -0.125])
  })

  it('composes with a base reward through RewardFn.sum and scale', () => {
    const reward = RewardFn.sum([RewardFn.scale(2)(Outcome.outcome), _.invalidActionPenalty(0.5), _.formatPenalty(0.25)])
    expect(reward(trajectory)).toEqual([-0.5, -0.75, 2])
  })

  it('rejects negative or non-finite magnitudes', () => {
    expect(() => _.turnCost(-1)).toThrow(/turnCost: expected a finite magnitude >= 0, got -1/)
    expect(() => _.formatPenalty(Number.POSITIVE_INFINITY)).toThrow(RangeError)
  })
})
