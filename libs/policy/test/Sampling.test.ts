import { Rng } from '@mtrl/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Sampling.js'

describe('Sampling', () => {
  it('top(k) lists the k largest log-softmax entries in order, ties by the lower id', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 8 }), (zs, k) => {
        const logits = Float32Array.from(zs)
        const got = _.top(k, 1)(logits)
        const lse = Math.log(zs.reduce((s, z) => s + Math.exp(z), 0))
        const want = zs
          .map((z, token) => ({ token, logprob: z - lse }))
          .sort((a, b) => b.logprob - a.logprob || a.token - b.token)
          .slice(0, k)
        expect(got.map((c) => c.token)).toEqual(want.map((c) => c.token))
        got.forEach((c, i) => expect(c.logprob).toBeCloseTo(want[i]!.logprob, 5))
      })
    )
  })

  it('greedy draw takes the arg-max and reports its temperature-1 log-prob; tempered draws are deterministic per seed', () => {
    const logits = Float32Array.of(0.5, 2, 1, -3)
    const greedy = _.draw({ temperature: 0 }, Rng.make(0))(logits)
    expect(greedy.token).toBe(1)
    expect(greedy.logprob).toBeCloseTo(_.top(1, 1)(logits)[0]!.logprob, 6)
    const a = Array.from(
      { length: 20 },
      (
        (rng) => () =>
          _.draw({ temperature: 0.7, topP: 0.9 }, rng)(logits).token
      )(Rng.make(3))
    )
    const b = Array.from(
      { length: 20 },
      (
        (rng) => () =>
          _.draw({ temperature: 0.7, topP: 0.9 }, rng)(logits).token
      )(Rng.make(3))
    )
    expect(a).toEqual(b)
  })
})
