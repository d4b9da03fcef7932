import type { Trajectory } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/TokenBatch.js'

const turn = (reward: number): Trajectory.Turn => ({ action: 'a', reward, valid: true, parsed: true, score: 0, maxScore: 1 })

const trajectory = (groupId: string, truncated: boolean): Trajectory.Trajectory => ({
  env: 'test',
  seed: 1,
  groupId,
  segments: [
    { kind: 'prompt', turn: 0, tokens: Int32Array.of(1, 2) },
    { kind: 'action', turn: 0, tokens: Int32Array.of(3, 4) },
    { kind: 'observation', turn: 0, tokens: Int32Array.of(5) },
    { kind: 'action', turn: 1, tokens: Int32Array.of(6) }
  ],
  turns: [turn(0.25), turn(1)],
  turnRewards: [0.25, 1],
  won: true,
  truncated
})

const short: Trajectory.Trajectory = {
  env: 'test',
  seed: 2,
  groupId: 'g',
  segments: [
    { kind: 'prompt', turn: 0, tokens: Int32Array.of(1) },
    { kind: 'action', turn: 0, tokens: Int32Array.of(2) }
  ],
  turns: [turn(0)],
  turnRewards: [0],
  won: false,
  truncated: false
}

describe('TokenBatch', () => {
  it('builds padded rows from trajectories, rewards on the last action token of each turn', () => {
    const batch = _.fromTrajectories({ trajectories: [trajectory('g', false), short], turnRewards: [[0.5, 2], [-1]] })
    expect([batch.batch, batch.time]).toEqual([2, 6])
    expect(Array.from(batch.tokenRewards)).toEqual([0, 0, 0, 0.5, 0, 2, 0, -1, 0, 0, 0, 0])
    expect(Array.from(batch.responseMask)).toEqual([0, 0, 1, 1, 0, 1, 0, 1, 0, 0, 0, 0])
    expect(Array.from(batch.turnIndex!)).toEqual([-1, -1, 0, 0, 0, 1, -1, 0, -1, -1, -1, -1])
    expect(batch.groupIds).toEqual(['g', 'g'])
    expect(E.isRight(_.validate(batch))).toBe(true)
  })

  it('defaults to the trajectories\' own turn rewards and copies values', () => {
    const values = Float32Array.of(1, 2, 3, 4, 5, 6)
    const batch = _.fromTrajectories({ trajectories: [trajectory('g', true)], values: [values], bootstrapValues: [0.75] })
    expect(Array.from(batch.tokenRewards)).toEqual([0, 0, 0, 0.25, 0, 1])
    expect(batch.values).toEqual(values)
    expect(Array.from(batch.bootstrapValues!)).toEqual([0.75])
  })

  it('refuses a bootstrap value for an episode that ended', () => {
    expect(() => _.fromTrajectories({ trajectories: [trajectory('g', false)], bootstrapValues: [1] })).toThrow(/not truncated/)
  })

  it('refuses per-trajectory arrays of the wrong length', () => {
    expect(() => _.fromTrajectories({ trajectories: [short], turnRewards: [[0], [1]] })).toThrow(/2 turnRewards for 1 trajectories/)
    expect(() => _.fromTrajectories({ trajectories: [short], turnRewards: [[0, 1]] })).toThrow(/1 turns but 2 turn rewards/)
    expect(() => _.fromTrajectories({ trajectories: [short], values: [Float32Array.of(1)] })).toThrow(/values 0 has 1 entries for 2 tokens/)
  })

  it('validate names the field and position of each fault', () => {
    const ok: _.TokenBatch = { batch: 1, time: 2, tokenRewards: Float32Array.of(0, 1), responseMask: Float32Array.of(1, 1) }
    const left = (input: _.TokenBatch): string => {
      const result = _.validate(input)
      return E.isLeft(result) ? result.left : 'valid'
    }
    expect(left(ok)).toBe('valid')
    expect(left({ ...ok, responseMask: Float32Array.of(1) })).toBe('responseMask: expected 2 entries (batch 1 x time 2), got 1')
    expect(left({ ...ok, responseMask: Float32Array.of(1, 0.5) })).toBe('responseMask[0][1]: expected 0 or 1, got 0.5')
    expect(left({ ...ok, tokenRewards: Float32Array.of(0, NaN) })).toBe('tokenRewards[0][1]: expected a finite number, got NaN')
    expect(left({ ...ok, values: Float32Array.of(0, Infinity) })).toBe('values[0][1]: expected a finite number, got Infinity')
    expect(left({ ...ok, groupIds: ['a', 'b'] })).toBe('groupIds: expected 1 entries (one per row, batch 1), got 2')
    expect(left({ ...ok, bootstrapValues: Float32Array.of(NaN) })).toBe('bootstrapValues[0]: expected a finite number, got NaN')
    expect(left({ ...ok, turnIndex: Int32Array.of(-1, 0) })).toBe('turnIndex[0][0]: action token with turn -1 (must be >= 0)')
  })

  it('sums row outcomes and broadcasts per-row values onto action tokens', () => {
    const input: _.TokenBatch = { batch: 2, time: 2, tokenRewards: Float32Array.of(1, 2, 0, 3), responseMask: Float32Array.of(1, 1, 0, 1) }
    expect(Array.from(_.rowOutcomes(input))).toEqual([3, 3])
    expect(Array.from(_.broadcastRows([5, 7], input.responseMask, 2))).toEqual([5, 5, 0, 7])
  })
})
