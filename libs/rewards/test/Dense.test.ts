import { Arbitraries } from '@mtrl/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Dense.js'
import { episode, total } from './fixtures.js'

describe('Dense', () => {
  it('normalises score deltas by the maximum score: hand-worked examples', () => {
    // maxScore 4, deltas [1, 0, 2, 1], won: [1/4, 0, 2/4, 1/4], sum 1
    expect(_.dense(episode([{ reward: 1 }, { reward: 0 }, { reward: 2 }, { reward: 1 }], { won: true, maxScore: 4 }))).toEqual([0.25, 0, 0.5, 0.25])
    // a win that skipped a sub-goal (deltas [1, 0, 1] of 4) is topped up at its last turn: [0.25, 0, 0.75]
    expect(_.dense(episode([{ reward: 1 }, { reward: 0 }, { reward: 1 }], { won: true, maxScore: 4 }))).toEqual([0.25, 0, 0.75])
    // a loss keeps its partial credit, negative deltas included: [1, 2, -1] of 4 -> [0.25, 0.5, -0.25], sum 0.5
    expect(_.dense(episode([{ reward: 1 }, { reward: 2 }, { reward: -1 }], { won: false, maxScore: 4 }))).toEqual([0.25, 0.5, -0.25])
    // a loss scoring 5 of 4 is capped at the win's 1: [0.5, 0.75 - 0.25]
    expect(_.dense(episode([{ reward: 2 }, { reward: 3 }], { won: false, maxScore: 4 }))).toEqual([0.5, 0.5])
    // no maximum score: raw deltas
    expect(_.dense(episode([{ reward: 0.5 }, { reward: 0 }], { won: false, maxScore: 0 }))).toEqual([0.5, 0])
  })

  it('a win sums to 1 and a loss never to more than a win', () => {
    fc.assert(
      fc.property(Arbitraries.trajectory(), (trajectory) => {
        const rewards = _.dense(trajectory)
        expect(rewards.length).toBe(trajectory.turns.length)
        if (trajectory.won) expect(total(rewards)).toBeCloseTo(1, 10)
        else expect(total(rewards)).toBeLessThanOrEqual(1 + 1e-12)
      })
    )
  })

  it('pays every intermediate score delta as it happens', () => {
    fc.assert(
      fc.property(Arbitraries.trajectory(), (trajectory) => {
        const rewards = _.dense(trajectory)
        trajectory.turns.slice(0, -1).forEach((turn, k) => expect(rewards[k]).toBeCloseTo(turn.reward / turn.maxScore, 12))
      })
    )
  })
})
