import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Aggregation.js'

beforeAll(() => TestBackend.use('cpu'))

const loss = [
  [1, 2, 3, 4],
  [10, 0, 0, 0],
  [5, 5, 5, 5]
]
const mask = [
  [1, 1, 1, 0],
  [1, 0, 0, 0],
  [0, 0, 0, 0]
]

const run = (mode: _.Mode, scale?: number): number => {
  const l = tf.tensor2d(loss)
  const m = tf.tensor2d(mask)
  const out = _.aggregate(mode, scale)(l, m)
  const value = out.dataSync()[0]!
  tf.dispose([l, m, out])
  return value
}

describe('Aggregation', () => {
  it('token-mean averages over all unmasked tokens', async () => {
    await expectNoLeak(() => expect(run('token-mean')).toBeCloseTo((1 + 2 + 3 + 10) / 4))
  })
  it('seq-mean-token-sum averages row sums over rows that have tokens', async () => {
    await expectNoLeak(() => expect(run('seq-mean-token-sum')).toBeCloseTo((6 + 10) / 2))
  })
  it('seq-mean-token-mean averages row means over rows that have tokens', async () => {
    await expectNoLeak(() => expect(run('seq-mean-token-mean')).toBeCloseTo((2 + 10) / 2))
  })
  it('seq-mean-token-sum-norm divides the sum by the padded length (or the given scale)', async () => {
    await expectNoLeak(() => {
      expect(run('seq-mean-token-sum-norm')).toBeCloseTo(16 / 4)
      expect(run('seq-mean-token-sum-norm', 8)).toBeCloseTo(2)
    })
  })
  it('an all-masked batch aggregates to 0', async () => {
    await expectNoLeak(() => {
      for (const mode of Object.keys(_.Mode.keys) as _.Mode[]) {
        const l = tf.ones([2, 3])
        const m = tf.zeros([2, 3])
        const out = _.aggregate(mode)(l, m)
        expect(out.dataSync()[0]).toBe(0)
        tf.dispose([l, m, out])
      }
    })
  })

  /** The table's formulas, directly (rows as arrays): the reference the weights are held to. */
  const formula = (mode: _.Mode, l: ReadonlyArray<number>, m: ReadonlyArray<number>, batch: number, time: number, scale?: number): number => {
    const rows = Array.from({ length: batch }, (_x, b) => ({
      sum: l.slice(b * time, (b + 1) * time).reduce((a, x, t) => a + x * m[b * time + t]!, 0),
      count: m.slice(b * time, (b + 1) * time).reduce((a, x) => a + x, 0)
    }))
    const withTokens = rows.filter((r) => r.count > 0)
    const total = rows.reduce((a, r) => a + r.sum, 0)
    switch (mode) {
      case 'token-mean':
        return (
          total /
          Math.max(
            1,
            rows.reduce((a, r) => a + r.count, 0)
          )
        )
      case 'seq-mean-token-sum':
        return total / Math.max(1, withTokens.length)
      case 'seq-mean-token-mean':
        return withTokens.reduce((a, r) => a + r.sum / r.count, 0) / Math.max(1, withTokens.length)
      case 'seq-mean-token-sum-norm':
        return total / (scale ?? time)
    }
  }

  it("weights: the weighted sum of the losses is the table's formula, in every mode, for any mask (rows without a token included)", () => {
    const modes = ['token-mean', 'seq-mean-token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom(...modes),
        fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
        fc.infiniteStream(fc.tuple(fc.boolean(), fc.double({ min: -5, max: 5, noNaN: true }))),
        (batch, time, mode, scale, stream) => {
          const cells = [...stream.take(batch * time)]
          const m = Float32Array.from(cells.map(([on]) => (on ? 1 : 0)))
          const l = Float32Array.from(cells.map(([, x]) => x))
          const expected = formula(mode, Array.from(l), Array.from(m), batch, time, scale)
          const w = _.weights(mode, scale)(m, batch, time)
          expect(w.reduce((a, x, i) => a + x * l[i]!, 0)).toBeCloseTo(expected, 4)
        }
      ),
      { numRuns: 200 }
    )
    expect(() => _.weights('token-mean')(new Float32Array(3), 2, 2)).toThrow(/a mask of 3 for 2 x 2/)
  })
})
