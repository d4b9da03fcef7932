import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Estimator.js'
import * as Grpo from '../src/Grpo.js'
import type { TokenBatch } from '../src/TokenBatch.js'

const input: TokenBatch = {
  batch: 2,
  time: 3,
  tokenRewards: Float32Array.of(0, 0, 1, 0, 0.5, 0),
  actionMask: Float32Array.of(1, 0, 1, 1, 1, 0),
  values: Float32Array.of(0.1, 0, 0.2, 0.3, 0.4, 0),
  turnIndex: Int32Array.of(0, 0, 1, 0, 0, 0),
  groupIds: ['g', 'g']
}

describe('Estimator', () => {
  it('registers every name, and every registered estimator runs with its defaults', () => {
    expect(Object.keys(_.registry).sort()).toEqual([..._.names].sort())
    for (const name of _.names) {
      const estimate = _.configure(name)({})
      expect(E.isRight(estimate)).toBe(true)
      if (E.isRight(estimate)) expect(estimate.right(input).advantages.length).toBe(6)
    }
  })

  it('fills omitted options from the defaults', () => {
    const dr = _.configure('drGrpo')({})
    const grpo = _.configure('grpo')({ normalizeByStd: false })
    expect(E.isRight(dr) && E.isRight(grpo)).toBe(true)
    if (E.isRight(dr) && E.isRight(grpo)) {
      expect(dr.right(input).advantages).toEqual(grpo.right(input).advantages)
      expect(dr.right(input).advantages).toEqual(Grpo.estimate({ normalizeByStd: false, epsilon: 1e-6 })(input).advantages)
    }
  })

  it('rejects unknown and out-of-range options, naming them', () => {
    const typo = _.configure('gae')({ gama: 0.9 })
    const range = _.configure('gae')({ gamma: 2 })
    expect(E.isLeft(typo) && typo.left.issues.map((i) => i.path)).toEqual(['gama'])
    expect(E.isLeft(range) && range.left.issues[0]).toMatchObject({ path: 'gamma', expected: 'a number in [0, 1]' })
  })
})
