import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/DualDiscountGae.js'
import * as TurnGae from '../src/TurnGae.js'
import type { TokenBatch } from '../src/TokenBatch.js'
import { closeTo, tokenBatch } from './arbitraries.js'

/**
 * Verlog's formula (token gamma = lambda = 1) written per turn, as in REFERENCE Part B 2.1:
 * A_k = delta_k + gs*ls*A_{k+1};  A_{k,t} = sum_{t'>=t} r + gs*V~_{k+1} - V_{k,t} + gs*ls*A_{k+1}.
 */
const verlog = (input: TokenBatch, gs: number, ls: number): number[] => {
  const out = new Array<number>(input.batch * input.time).fill(0)
  for (let b = 0; b < input.batch; b++) {
    const turns: number[][] = []
    for (let t = 0; t < input.time; t++) {
      const i = b * input.time + t
      if (input.actionMask[i] !== 1) continue
      const last = turns[turns.length - 1]
      if (last !== undefined && input.turnIndex![last[0]!] === input.turnIndex![i]) last.push(i)
      else turns.push([i])
    }
    let nextV = input.bootstrapValues?.[b] ?? 0
    let nextA = 0
    for (let k = turns.length - 1; k >= 0; k--) {
      const tokens = turns[k]!
      tokens.forEach((i, j) => {
        const toGo = tokens.slice(j).reduce((s, i2) => s + input.tokenRewards[i2]!, 0)
        out[i] = toGo + gs * nextV - input.values![i]! + gs * ls * nextA
      })
      const vTilde = input.values![tokens[0]!]!
      const R = tokens.reduce((s, i) => s + input.tokenRewards[i]!, 0)
      nextA = R + gs * nextV - vTilde + gs * ls * nextA
      nextV = vTilde
    }
  }
  return out
}

describe('DualDiscountGae', () => {
  const example: TokenBatch = {
    batch: 1,
    time: 4,
    tokenRewards: Float32Array.of(0, 1, 0, 2),
    actionMask: Float32Array.of(1, 1, 0, 1),
    values: Float32Array.of(0.5, 0.25, 9, 1),
    turnIndex: Int32Array.of(0, 0, 0, 1)
  }
  const options: _.Options = { gamma: 0.5, lambda: 0.5, tokenGamma: 0.5, whiten: false }

  it('discounts across turns and within a turn: hand-worked example', () => {
    // turn 1 (a3): carry = 0.5*(0 + 0.5*0) = 0;  G = 2;  adv = 2 - 1 = 1;  A_1 = 1, V~_1 = 1
    // turn 0: carry = 0.5*(1 + 0.5*1) = 0.75
    //   a1: G = 1 + 0.75 = 1.75, adv = 1.75 - 0.25 = 1.5
    //   a0: G = 0 + 0.5*1.75 = 0.875, adv = 0.875 - 0.5 = 0.375
    const out = _.estimate(options)(example)
    expect(Array.from(out.advantages)).toEqual([0.375, 1.5, 0, 1])
    expect(Array.from(out.returns)).toEqual([0.875, 1.75, 0, 2])
  })

  it("bootstraps a truncated window from the next turn's value", () => {
    // bootstrap 2: turn 1 carry = 0.5*2 = 1, G = 3, adv = 2, A_1 = 2
    // turn 0 carry = 0.5*(1 + 0.5*2) = 1;  a1: G = 2, adv = 1.75;  a0: G = 1, adv = 0.5
    const out = _.estimate(options)({ ...example, bootstrapValues: Float32Array.of(2) })
    expect(Array.from(out.advantages)).toEqual([0.5, 1.75, 0, 2])
  })

  it("with token gamma 1 equals Verlog's formula", () => {
    fc.assert(
      fc.property(tokenBatch(), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (input, gamma, lambda) => {
        const out = _.estimate({ gamma, lambda, tokenGamma: 1, whiten: false })(input)
        return closeTo(out.advantages, verlog(input, gamma, lambda), 1e-4)
      })
    )
  })

  it("gives each turn's first action token the turn-level GAE advantage", () => {
    fc.assert(
      fc.property(tokenBatch(), fc.double({ min: 0, max: 1, noNaN: true }), (input, lambda) => {
        const dual = _.estimate({ gamma: 0.9, lambda, tokenGamma: 1, whiten: false })(input)
        const turn = TurnGae.estimate({ gamma: 0.9, lambda, whiten: false })(input)
        const { time, actionMask: m, turnIndex: k } = input
        for (let i = 0; i < m.length; i++) {
          if (m[i] !== 1) continue
          let j = i - 1
          while (j >= i - (i % time) && m[j] !== 1) j--
          const first = j < i - (i % time) || k![j] !== k![i]
          if (first) expect(dual.advantages[i]).toBeCloseTo(turn.advantages[i]!, 3)
        }
      })
    )
  })
})
