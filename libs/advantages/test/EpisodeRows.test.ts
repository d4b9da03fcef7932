import { Trajectory } from '@mtrl/core'
import { Arbitraries } from '@mtrl/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/EpisodeRows.js'
import * as Gae from '../src/Gae.js'

const turn = (reward: number): Trajectory.Turn => ({ action: 'a', reward, valid: true, parsed: true, score: 0, maxScore: 1 })

// tokens:      1 2 | 3 4 | 5 | 6
// kind:        p p | a a | o | a      (turn 0 action, its observation, turn 1 action)
const full: Trajectory.Trajectory = {
  env: 'test',
  seed: 1,
  groupId: 'g',
  segments: [
    { kind: 'prompt', turn: 0, tokens: Int32Array.of(1, 2) },
    { kind: 'action', turn: 0, tokens: Int32Array.of(3, 4) },
    { kind: 'observation', turn: 0, tokens: Int32Array.of(5) },
    { kind: 'action', turn: 1, tokens: Int32Array.of(6) }
  ],
  turns: [turn(0.25), turn(1)],
  turnRewards: [0.25, 1],
  won: true,
  truncated: false
}

// window memory: one sample per turn, each [prompt | action] with its own local turn 0
const windowSample = (prompt: ReadonlyArray<number>, action: ReadonlyArray<number>, reward: number): Trajectory.Trajectory => ({
  env: 'test',
  seed: 1,
  groupId: 'w',
  segments: [
    { kind: 'prompt', turn: 0, tokens: Int32Array.from(prompt) },
    { kind: 'action', turn: 0, tokens: Int32Array.from(action) }
  ],
  turns: [turn(reward)],
  turnRewards: [reward],
  won: false,
  truncated: true
})

describe('EpisodeRows', () => {
  it('keeps exactly the action tokens, with their turn, value and the turn reward on the last action token of each turn', () => {
    const values = Float32Array.of(9, 9, 2, 3, 9, 4)
    const rows = _.make([{ samples: [full], turnRewards: [0.5, 2], groupId: 'g', values: [values] }])
    expect([rows.batch.batch, rows.batch.time]).toEqual([1, 3])
    expect(Array.from(rows.batch.actionMask)).toEqual([1, 1, 1])
    expect(Array.from(rows.batch.turnIndex!)).toEqual([0, 0, 1])
    expect(Array.from(rows.batch.tokenRewards)).toEqual([0, 0.5, 2])
    expect(Array.from(rows.batch.values!)).toEqual([2, 3, 4])
    expect(Array.from(rows.sources[0]!.token)).toEqual([2, 3, 5])
    expect(Array.from(rows.sources[0]!.sample)).toEqual([0, 0, 0])
    expect(rows.batch.groupIds).toEqual(['g'])
    expect(Array.from(rows.batch.bootstrapValues!)).toEqual([0])
  })

  it('links the per-turn samples of window memory: sample k plays turn k', () => {
    const samples = [windowSample([1], [2, 3], 0), windowSample([1, 2, 3, 4], [5], -0.5), windowSample([1, 7], [8, 9], 1)]
    const rows = _.make([{ samples, turnRewards: [0, -0.5, 1], groupId: 'w', bootstrapValue: 0.75 }])
    expect(Array.from(rows.batch.turnIndex!)).toEqual([0, 0, 1, 2, 2])
    expect(Array.from(rows.batch.tokenRewards)).toEqual([0, 0, -0.5, 0, 1])
    expect(Array.from(rows.sources[0]!.sample)).toEqual([0, 0, 1, 2, 2])
    expect(Array.from(rows.sources[0]!.token)).toEqual([1, 2, 4, 2, 3])
    expect(Array.from(rows.batch.bootstrapValues!)).toEqual([0.75])
  })

  it('pads shorter episodes with mask 0, reward 0 and turn -1', () => {
    const short: Trajectory.Trajectory = { ...full, groupId: 'h', segments: full.segments.slice(0, 2), turns: [turn(0)], turnRewards: [0] }
    const rows = _.make([
      { samples: [full], turnRewards: full.turnRewards, groupId: 'g' },
      { samples: [short], turnRewards: [3], groupId: 'h' }
    ])
    expect(rows.batch.time).toBe(3)
    expect(Array.from(rows.batch.actionMask)).toEqual([1, 1, 1, 1, 1, 0])
    expect(Array.from(rows.batch.tokenRewards)).toEqual([0, 0.25, 1, 0, 3, 0])
    expect(Array.from(rows.batch.turnIndex!)).toEqual([0, 0, 1, 0, 0, -1])
    expect(rows.batch.values).toBeUndefined()
  })

  it('adds per-token rewards (e.g. -beta KL) on action tokens to the turn rewards', () => {
    const penalty = Float32Array.of(5, 5, -0.1, -0.2, 5, -0.3)
    const rows = _.make([{ samples: [full], turnRewards: [0, 1], groupId: 'g', tokenRewards: [penalty] }])
    expect(Array.from(rows.batch.tokenRewards)).toEqual([Math.fround(-0.1), Math.fround(-0.2), Math.fround(1 - 0.3)])
  })

  it('an action kept out of the loss (trainable: false) gets no row entry', () => {
    const detour: Trajectory.Trajectory = { ...full, segments: full.segments.map((s, i) => (i === 1 ? { ...s, trainable: false } : s)) }
    const rows = _.make([{ samples: [detour], turnRewards: [0, 1], groupId: 'g' }])
    expect(Array.from(rows.sources[0]!.token)).toEqual([5])
    expect(() => _.make([{ samples: [detour], turnRewards: [1, 1], groupId: 'g' }])).toThrow(/turn 0 has reward 1 but no action token/)
  })

  it('refuses turn rewards that do not match the turns, and short values', () => {
    expect(() => _.make([{ samples: [full], turnRewards: [1], groupId: 'g' }])).toThrow(/2 turns but 1 turn rewards/)
    expect(() => _.make([{ samples: [full], turnRewards: [0, 1], groupId: 'g', values: [Float32Array.of(1)] }])).toThrow(/1 values for 6 tokens/)
  })

  it('scatter writes each entry back on the token it came from and nowhere else', () => {
    fc.assert(
      fc.property(fc.array(Arbitraries.trajectory(), { minLength: 1, maxLength: 4 }), (trajectories) => {
        const rows = _.make(trajectories.map((t) => ({ samples: [t], turnRewards: t.turnRewards, groupId: t.groupId })))
        const targets = trajectories.map((t) => [new Float32Array(Trajectory.length(t)).fill(-7)])
        _.scatter(rows, Float32Array.from(rows.batch.turnIndex!))(targets)
        trajectories.forEach((t, e) => {
          const mask = Trajectory.actionMask(t)
          const turns = Trajectory.turnIndex(t)
          targets[e]![0]!.forEach((x, i) => expect(x).toBe(mask[i] === 1 ? turns[i] : -7))
        })
      })
    )
  })

  it('the rows keep every reward: each row sums to its episode return', () => {
    fc.assert(
      fc.property(fc.array(Arbitraries.trajectory(), { minLength: 1, maxLength: 4 }), (trajectories) => {
        const rows = _.make(trajectories.map((t) => ({ samples: [t], turnRewards: t.turnRewards, groupId: t.groupId })))
        trajectories.forEach((t, e) => {
          const row = rows.batch.tokenRewards.subarray(e * rows.batch.time, (e + 1) * rows.batch.time)
          expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(
            t.turnRewards.reduce((a, b) => a + Math.fround(b), 0),
            5
          )
        })
      })
    )
  })

  it('dropping prompt and observation tokens changes no GAE estimate (verl skipping GAE on the whole sequence)', () => {
    fc.assert(
      fc.property(fc.array(Arbitraries.trajectory(), { minLength: 1, maxLength: 4 }), fc.double({ min: 0, max: 1, noNaN: true }), (trajectories, lambda) => {
        const values = trajectories.map((t) => Float32Array.from({ length: Trajectory.length(t) }, (_, i) => Math.cos(i + t.seed)))
        const estimator = Gae.estimate({ gamma: 0.9, lambda, whiten: false })
        const rows = _.make(trajectories.map((t, e) => ({ samples: [t], turnRewards: t.turnRewards, groupId: t.groupId, values: [values[e]!] })))
        const advantages = trajectories.map((t) => [new Float32Array(Trajectory.length(t))])
        _.scatter(rows, estimator(rows.batch).advantages)(advantages)
        // the reference: GAE over each whole token sequence, rewards on each turn's last action token
        trajectories.forEach((t, e) => {
          const n = Trajectory.length(t)
          const tokenRewards = new Float32Array(n)
          let at = 0
          const last = new Map<number, number>()
          for (const s of t.segments) {
            if (s.kind === 'action') last.set(s.turn, at + s.tokens.length - 1)
            at += s.tokens.length
          }
          t.turnRewards.forEach((r, k) => (tokenRewards[last.get(k)!]! += r))
          const whole = estimator({ batch: 1, time: n, tokenRewards, actionMask: Trajectory.actionMask(t), values: values[e]! })
          whole.advantages.forEach((a, i) => expect(advantages[e]![0]![i]).toBeCloseTo(a, 4))
        })
      })
    )
  })
})
