import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Gae.js'
import type { TokenBatch } from '../src/TokenBatch.js'
import { closeTo, maskedMoments, tokenBatch, withFields } from './arbitraries.js'

const plain = (gamma: number, lambda: number): _.Options => ({ gamma, lambda, whiten: false })

/** verl's `compute_gae_advantage_return` loop, literally (A stored at every position), then masked. */
const verlReference = (input: TokenBatch, gamma: number, lambda: number): { advantages: number[]; returns: number[] } => {
  const { batch, time, tokenRewards: r, actionMask: m } = input
  const v = input.values ?? new Float32Array(batch * time)
  const advantages: number[] = []
  const returns: number[] = []
  for (let b = 0; b < batch; b++) {
    let nextV = input.bootstrapValues?.[b] ?? 0
    let lastA = 0
    const row: number[] = new Array<number>(time).fill(0)
    for (let t = time - 1; t >= 0; t--) {
      const i = b * time + t
      const delta = r[i]! + gamma * nextV - v[i]!
      const a = delta + gamma * lambda * lastA
      nextV = v[i]! * m[i]! + (1 - m[i]!) * nextV
      lastA = a * m[i]! + (1 - m[i]!) * lastA
      row[t] = lastA
    }
    row.forEach((a, t) => {
      const i = b * time + t
      advantages.push(a * m[i]!)
      returns.push((a + v[i]!) * m[i]!)
    })
  }
  return { advantages, returns }
}

describe('Gae', () => {
  it('skips observation tokens: hand-worked example', () => {
    // tokens: a0 a1 obs a3; gamma = lambda = 0.5; V(obs) = 7 is never read
    // a3: delta = 1 + 0.5*0 - 0.5 = 0.5                A = 0.5                         ret = 1
    // a1: delta = 0 + 0.5*0.5 - 0.25 = 0               A = 0 + 0.25*0.5 = 0.125        ret = 0.375
    // a0: delta = 0 + 0.5*0.25 - 0.5 = -0.375          A = -0.375 + 0.25*0.125 = -0.34375   ret = 0.15625
    const out = _.estimate(plain(0.5, 0.5))({
      batch: 1,
      time: 4,
      tokenRewards: Float32Array.of(0, 0, 0, 1),
      actionMask: Float32Array.of(1, 1, 0, 1),
      values: Float32Array.of(0.5, 0.25, 7, 0.5)
    })
    expect(Array.from(out.advantages)).toEqual([-0.34375, 0.125, 0, 0.5])
    expect(Array.from(out.returns)).toEqual([0.15625, 0.375, 0, 1])
  })

  it('bootstraps a truncated row from its bootstrap value instead of 0', () => {
    // gamma = 0.5, lambda = 1, V = 0, bootstrap 2
    // a1: delta = 0 + 0.5*2 - 0 = 1 -> A = 1;  a0: delta = 0 -> A = 0 + 0.5*1 = 0.5
    const input: TokenBatch = { batch: 1, time: 2, tokenRewards: Float32Array.of(0, 0), actionMask: Float32Array.of(1, 1), values: Float32Array.of(0, 0) }
    expect(Array.from(_.estimate(plain(0.5, 1))({ ...input, bootstrapValues: Float32Array.of(2) }).advantages)).toEqual([0.5, 1])
    expect(Array.from(_.estimate(plain(0.5, 1))(input).advantages)).toEqual([0, 0])
  })

  it("equals verl's masked loop on any batch", () => {
    fc.assert(
      fc.property(tokenBatch(), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (input, gamma, lambda) => {
        const out = _.estimate(plain(gamma, lambda))(input)
        const ref = verlReference(input, gamma, lambda)
        return closeTo(out.advantages, ref.advantages, 1e-4) && closeTo(out.returns, ref.returns, 1e-4)
      })
    )
  })

  it('with gamma = lambda = 1 and zero values is the reward-to-go', () => {
    fc.assert(
      fc.property(tokenBatch(), (input) => {
        const out = _.estimate(plain(1, 1))(withFields(input, { values: undefined, bootstrapValues: undefined }))
        const expected = new Float64Array(input.batch * input.time)
        for (let b = 0; b < input.batch; b++) {
          let toGo = 0
          for (let t = input.time - 1; t >= 0; t--) {
            const i = b * input.time + t
            toGo += input.tokenRewards[i]!
            expected[i] = input.actionMask[i]! * toGo
          }
        }
        return closeTo(out.advantages, expected, 1e-4) && closeTo(out.returns, expected, 1e-4)
      })
    )
  })

  it('ignores values on observation tokens', () => {
    fc.assert(
      fc.property(tokenBatch(), fc.double({ min: -100, max: 100, noNaN: true }), fc.boolean(), (input, noise, whiten) => {
        const values = Float32Array.from(input.values!, (v, i) => (input.actionMask[i] === 1 ? v : v + noise))
        const options = { gamma: 0.9, lambda: 0.8, whiten }
        const a = _.estimate(options)(input)
        const b = _.estimate(options)(withFields(input, { values }))
        expect(b.advantages).toEqual(a.advantages)
        expect(b.returns).toEqual(a.returns)
      })
    )
  })

  it('whitened advantages have mean 0 and sample std 1 over action tokens', () => {
    fc.assert(
      fc.property(tokenBatch(), (input) => {
        const raw = _.estimate(plain(0.9, 0.95))(input)
        const rawMoments = maskedMoments(raw.advantages, input.actionMask)
        fc.pre(rawMoments.count >= 2 && rawMoments.std > 1e-2)
        const { mean, std } = maskedMoments(_.estimate({ gamma: 0.9, lambda: 0.95, whiten: true })(input).advantages, input.actionMask)
        expect(mean).toBeCloseTo(0, 4)
        expect(std).toBeCloseTo(1, 3)
      })
    )
  })

  it('leaves returns unwhitened and zeroes everything off the mask', () => {
    fc.assert(
      fc.property(tokenBatch(), (input) => {
        const whitened = _.estimate(_.defaultOptions)(input)
        const raw = _.estimate({ ..._.defaultOptions, whiten: false })(input)
        expect(whitened.returns).toEqual(raw.returns)
        input.actionMask.forEach((m, i) => {
          if (m === 0) expect([whitened.advantages[i], whitened.returns[i]]).toEqual([0, 0])
        })
      })
    )
  })

  it('rejects a reward on an observation token, naming the position', () => {
    const bad = { batch: 1, time: 2, tokenRewards: Float32Array.of(0, 1), actionMask: Float32Array.of(1, 0) }
    expect(() => _.estimate(_.defaultOptions)(bad)).toThrow(/tokenRewards\[0\]\[1\]/)
  })

  it('rejects out-of-range options', () => {
    expect(() =>
      _.estimate({ gamma: 1.5, lambda: 1, whiten: false })({ batch: 0, time: 0, tokenRewards: new Float32Array(), actionMask: new Float32Array() })
    ).toThrow(/invalid options/)
  })
})
