import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Gae from '../src/Gae.js'
import * as _ from '../src/TurnGae.js'
import { closeTo, tokenBatch, withFields } from './arbitraries.js'

describe('TurnGae', () => {
  it("steps once per turn, reading V at the turn's first action token: hand-worked example", () => {
    // tokens: a0 a1 (turn 0) | obs | a3 a4 (turn 1); gamma = lambda = 0.5
    // turn 1: R = 1,   V~ = 0.5  (V(a4) = 9 unread)  delta = 1 + 0 - 0.5 = 0.5            A = 0.5    ret = 1
    // turn 0: R = 0.5, V~ = 0.25 (V(a1) = 9 unread)  delta = 0.5 + 0.5*0.5 - 0.25 = 0.5  A = 0.5 + 0.25*0.5 = 0.625  ret = 0.875
    const out = _.estimate({ gamma: 0.5, lambda: 0.5, whiten: false })({
      batch: 1,
      time: 5,
      tokenRewards: Float32Array.of(0, 0.5, 0, 0, 1),
      actionMask: Float32Array.of(1, 1, 0, 1, 1),
      values: Float32Array.of(0.25, 9, 9, 0.5, 9),
      turnIndex: Int32Array.of(0, 0, 0, 1, 1)
    })
    expect(Array.from(out.advantages)).toEqual([0.625, 0.625, 0, 0.5, 0.5])
    expect(Array.from(out.returns)).toEqual([0.875, 0.875, 0, 1, 1])
  })

  it("treats a turn with zero reward as a step of its own (unlike RAGEN's non-zero-reward boundaries)", () => {
    // three turns, rewards 0, 0, 1, gamma 0.5, lambda 1, V = 0: A = [0.25, 0.5, 1]
    const out = _.estimate({ gamma: 0.5, lambda: 1, whiten: false })({
      batch: 1,
      time: 3,
      tokenRewards: Float32Array.of(0, 0, 1),
      actionMask: Float32Array.of(1, 1, 1),
      turnIndex: Int32Array.of(0, 1, 2)
    })
    expect(Array.from(out.advantages)).toEqual([0.25, 0.5, 1])
  })

  it('equals token-level GAE when every turn has one action token', () => {
    fc.assert(
      fc.property(tokenBatch(), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (input, gamma, lambda) => {
        const oneTokenTurns = withFields(input, { turnIndex: Int32Array.from(input.turnIndex!, (_, i) => i % input.time) })
        const turn = _.estimate({ gamma, lambda, whiten: false })(oneTokenTurns)
        const token = Gae.estimate({ gamma, lambda, whiten: false })(oneTokenTurns)
        return closeTo(turn.advantages, token.advantages, 1e-4) && closeTo(turn.returns, token.returns, 1e-4)
      })
    )
  })

  it('gives every action token of a turn the same advantage, and reads only first-token values', () => {
    fc.assert(
      fc.property(tokenBatch(), fc.double({ min: -50, max: 50, noNaN: true }), (input, noise) => {
        const { time, actionMask: m, turnIndex: k } = input
        const out = _.estimate({ gamma: 0.9, lambda: 0.7, whiten: false })(input)
        const isFirst = (i: number): boolean => {
          for (let j = i - 1; j >= i - (i % time); j--) if (m[j] === 1) return k![j] !== k![i]
          return true
        }
        const values = Float32Array.from(input.values!, (v, i) => (m[i] === 1 && isFirst(i) ? v : v + noise))
        expect(_.estimate({ gamma: 0.9, lambda: 0.7, whiten: false })(withFields(input, { values })).advantages).toEqual(out.advantages)
        for (let i = 1; i < m.length; i++)
          if (m[i] === 1 && !isFirst(i) && i % time !== 0) {
            let j = i - 1
            while (m[j] !== 1) j--
            expect(out.advantages[i]).toBe(out.advantages[j])
          }
      })
    )
  })

  it('requires turnIndex', () => {
    expect(() => _.estimate(_.defaultOptions)({ batch: 1, time: 1, tokenRewards: Float32Array.of(1), actionMask: Float32Array.of(1) })).toThrow(/turnIndex/)
  })

  it('rejects turns that go backwards along a row', () => {
    const input = { batch: 1, time: 2, tokenRewards: Float32Array.of(0, 1), actionMask: Float32Array.of(1, 1), turnIndex: Int32Array.of(1, 0) }
    expect(() => _.estimate(_.defaultOptions)(input)).toThrow(/turnIndex\[0\]\[1\]: turn 0 after turn 1/)
  })
})
