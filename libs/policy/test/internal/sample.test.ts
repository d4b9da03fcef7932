import { Rng } from '@mtrl/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../../src/internal/sample.js'

const logSoftmax = (z: ArrayLike<number>, t: number): number[] => {
  const s = Array.from(z, (v) => v / t)
  const m = Math.max(...s)
  const lse = m + Math.log(s.reduce((a, v) => a + Math.exp(v - m), 0))
  return s.map((v) => v - lse)
}

describe('sample.draw', () => {
  const logits = Float32Array.of(1, 3, 2, -1, 0.5)

  it('greedy takes the argmax and reports its log-prob at temperature 1', () => {
    const d = _.draw(logits, 0, 5, { temperature: 0 }, Rng.make(0))
    expect(d.token).toBe(1)
    expect(d.logprob).toBeCloseTo(logSoftmax(logits, 1)[1]!, 6)
  })

  it('reports log-probs under the tempered distribution, and draws with its frequencies', () => {
    const rng = Rng.make(1)
    const counts = new Array(5).fill(0)
    const lp = logSoftmax(logits, 0.7)
    for (let i = 0; i < 20000; i++) {
      const d = _.draw(logits, 0, 5, { temperature: 0.7 }, rng)
      expect(d.logprob).toBeCloseTo(lp[d.token]!, 6)
      counts[d.token]++
    }
    counts.forEach((c, i) => expect(Math.abs(c / 20000 - Math.exp(lp[i]!))).toBeLessThan(0.015))
  })

  it('top-k / top-p renormalise over the kept tokens', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.double({ min: 0.05, max: 0.99, noNaN: true }), fc.nat(), (k, p, seed) => {
        const d = _.draw(logits, 0, 5, { temperature: 1, topK: k, topP: p }, Rng.make(seed))
        const lp = logSoftmax(logits, 1)
        const order = [1, 2, 0, 4, 3].slice(0, k)
        let kept = order.length
        let acc = 0
        for (let r = 0; r < order.length; r++) {
          acc += Math.exp(lp[order[r]!]!)
          if (acc >= p) {
            kept = r + 1
            break
          }
        }
        const set = order.slice(0, kept)
        expect(set).toContain(d.token)
        const mass = set.reduce((a, i) => a + Math.exp(lp[i]!), 0)
        expect(d.logprob).toBeCloseTo(lp[d.token]! - Math.log(mass), 6)
      })
    )
  })
})
