import { Arbitraries } from '@mtrl/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Outcome.js'
import { episode } from './fixtures.js'

describe('Outcome', () => {
  it('pays 1 at the last turn of a win and nothing else', () => {
    expect(_.outcome(episode([{ reward: 1 }, { reward: 0 }, { reward: 3 }], { won: true, maxScore: 4 }))).toEqual([0, 0, 1])
    expect(_.outcome(episode([{ reward: 1 }, { reward: 3 }], { won: false, maxScore: 4 }))).toEqual([0, 0])
  })

  it('returns one reward per turn, summing to 1 for a win and 0 otherwise', () => {
    fc.assert(
      fc.property(Arbitraries.trajectory(), (trajectory) => {
        const rewards = _.outcome(trajectory)
        expect(rewards.length).toBe(trajectory.turns.length)
        expect(rewards.reduce((a, b) => a + b, 0)).toBe(trajectory.won ? 1 : 0)
      })
    )
  })
})
