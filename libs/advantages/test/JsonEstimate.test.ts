import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as Gae from '../src/Gae.js'
import * as _ from '../src/JsonEstimate.js'

const good = {
  tokenRewards: [
    [0, 0, 1],
    [0, 1, 0]
  ],
  actionMask: [
    [1, 0, 1],
    [1, 1, 0]
  ],
  values: [
    [0.5, 9, 0.25],
    [0, 0.5, 0]
  ],
  groupIds: ['t', 't'],
  turnIndex: [
    [0, 0, 1],
    [0, 0, 0]
  ]
}

const error = (estimator: string, json: unknown): string => {
  const result = _.run(estimator)(json)
  return E.isLeft(result) ? result.left : 'no error'
}

describe('JsonEstimate', () => {
  it('runs the named estimator with option overrides and returns nested arrays', () => {
    const result = _.run('gae')({ ...good, options: { whiten: false } })
    const direct = Gae.estimate({ ...Gae.defaultOptions, whiten: false })({
      batch: 2,
      time: 3,
      tokenRewards: Float32Array.of(0, 0, 1, 0, 1, 0),
      actionMask: Float32Array.of(1, 0, 1, 1, 1, 0),
      values: Float32Array.of(0.5, 9, 0.25, 0, 0.5, 0)
    })
    // row 0 by hand (gamma = lambda = 1): a2: 1 - 0.25 = 0.75; a0: 0 + 0.25 - 0.5 + 0.75 = 0.5
    expect(result).toEqual(
      E.right({
        advantages: [
          [0.5, 0, 0.75],
          [1, 0.5, 0]
        ],
        returns: [
          [1, 0, 1],
          [1, 1, 0]
        ]
      })
    )
    expect(E.isRight(result) && result.right.advantages.flat()).toEqual(Array.from(direct.advantages))
  })

  it('bootstraps truncated rows from bootstrapValues', () => {
    // row 1 (gamma = lambda = 1, whiten off): a1: 1 + 2 - 0.5 = 2.5; a0: 0 + 0.5 - 0 + 2.5 = 3
    const result = _.run('gae')({ ...good, bootstrapValues: [0, 2], options: { whiten: false } })
    expect(E.isRight(result) && result.right.advantages[1]).toEqual([3, 2.5, 0])
  })

  it('runs every estimator on the same input', () => {
    for (const name of ['gae', 'turnGae', 'dualDiscountGae', 'grpo', 'drGrpo', 'rloo', 'reinforcePlusPlus']) expect(E.isRight(_.run(name)(good))).toBe(true)
  })

  it('names an unknown estimator and lists the known ones', () => {
    expect(error('ppo', good)).toMatch(/unknown estimator "ppo" \(expected one of gae, turnGae/)
  })

  it('rejects ragged rows and masks of the wrong shape, naming the field', () => {
    expect(
      error('gae', {
        ...good,
        tokenRewards: [
          [0, 0, 1],
          [0, 1]
        ]
      })
    ).toBe('tokenRewards[1]: expected 3 entries (as tokenRewards[0]), got 2')
    expect(error('gae', { ...good, actionMask: [[1, 0, 1]] })).toBe('actionMask: expected 2 rows (as tokenRewards), got 1')
    expect(
      error('gae', {
        ...good,
        values: [
          [0, 0, 0],
          [0, 0]
        ]
      })
    ).toBe('values[1]: expected 3 entries (as tokenRewards[0]), got 2')
    expect(error('gae', { ...good, groupIds: ['t'] })).toBe('groupIds: expected 2 entries (one per row), got 1')
    expect(error('gae', { ...good, bootstrapValues: [0] })).toBe('bootstrapValues: expected 2 entries (one per row), got 1')
    expect(
      error('gae', {
        ...good,
        actionMask: [
          [1, 0.5, 1],
          [1, 1, 0]
        ]
      })
    ).toBe('actionMask[0][1]: expected 0 or 1, got 0.5')
  })

  it('rejects NaN, strings and non-integer turns with the path of the value', () => {
    expect(
      error('gae', {
        ...good,
        values: [
          [0, NaN, 0],
          [0, 0, 0]
        ]
      })
    ).toContain('values.0.1: expected a finite number, got NaN')
    expect(
      error('gae', {
        ...good,
        tokenRewards: [
          [0, 'x', 1],
          [0, 1, 0]
        ]
      })
    ).toContain('tokenRewards.0.1: expected a finite number, got "x"')
    expect(
      error('turnGae', {
        ...good,
        turnIndex: [
          [0, 0.5, 1],
          [0, 0, 0]
        ]
      })
    ).toBe('turnIndex[0][1]: expected an integer, got 0.5')
  })

  it('rejects unknown fields and unknown or bad options', () => {
    expect(error('gae', { ...good, reward: [] })).toContain('reward: unknown field')
    expect(error('gae', { ...good, options: { gama: 1 } })).toMatch(/invalid gae options:\n {2}gama: unknown field/)
    expect(error('grpo', { ...good, options: { epsilon: -1 } })).toContain('epsilon: expected a finite number > 0, got -1')
  })

  it('rejects rewards off the mask and missing bookkeeping', () => {
    expect(
      error('gae', {
        ...good,
        tokenRewards: [
          [0, 1, 1],
          [0, 1, 0]
        ]
      })
    ).toMatch(/tokenRewards\[0\]\[1\]: reward 1 on a token outside actionMask/)
    const { groupIds: _g, turnIndex: _t, ...bare } = good
    expect(error('rloo', bare)).toMatch(/groupIds is required/)
    expect(error('dualDiscountGae', bare)).toMatch(/turnIndex is required/)
  })

  it("takes episodes as trajectories through the trainer's path: advantages aligned with each trajectory's tokens", () => {
    // tokens: prompt 1 2 | action 3 4 | observation 5 | action 6; turn rewards 0 and 1
    const trajectory = {
      env: 'e',
      seed: 1,
      groupId: 'e:1',
      won: true,
      truncated: false,
      segments: [
        { kind: 'prompt', turn: 0, tokens: [1, 2] },
        { kind: 'action', turn: 0, tokens: [3, 4] },
        { kind: 'observation', turn: 0, tokens: [5] },
        { kind: 'action', turn: 1, tokens: [6] }
      ],
      turns: [0, 1].map((reward) => ({ action: 'a', reward, valid: true, parsed: true, score: reward, maxScore: 1 })),
      turnRewards: [0, 1]
    }
    const values = [[9, 9, 0.5, 0.25, 9, 0.75]]
    const out = _.run('gae')({ trajectories: [trajectory], values: [values[0]], options: { whiten: false } })
    // gamma = lambda = 1: A = reward-to-go - V on action tokens; observation and prompt 0
    expect(out).toEqual(E.right({ advantages: [[0, 0, 0.5, 0.75, 0, 0.25]], returns: [[0, 0, 1, 1, 0, 1]] }))
    expect(error('gae', { trajectories: [trajectory], values: [[1, 2]] })).toBe('values[0]: expected 6 entries (the tokens of trajectories[0]), got 2')
    expect(error('gae', { trajectories: [trajectory], bootstrapValues: [1] })).toMatch(/trajectories\[0\] ended \(not truncated\)/)
    expect(error('gae', { trajectories: [{ ...trajectory, turnRewards: [1] }] })).toMatch(/2 turns but 1 turn rewards/)
  })
})
