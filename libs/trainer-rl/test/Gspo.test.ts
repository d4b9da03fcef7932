import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Gspo.js'
import * as PolicyGradient from '../src/PolicyGradient.js'

beforeAll(() => TestBackend.use('cpu'))

const t2 = (rows: number[][]) => tf.tensor2d(rows)

/** The loss and its gradient in the current log-probs. */
const lossAndGrad = (options: _.Options, lp: number[][], old: number[][], adv: number[][], mask: number[][]) => {
  const init = t2(lp)
  const logprobs = tf.variable(init)
  init.dispose()
  const inputs = { oldLogprobs: t2(old), advantages: t2(adv), mask: t2(mask) }
  let clipFraction = 0
  const { value, grads } = tf.variableGrads(() => {
    const out = _.loss(options)({ logprobs, ...inputs })
    clipFraction = out.clipFraction.dataSync()[0]!
    tf.dispose([out.clipFraction, out.approxKl])
    return out.loss
  }, [logprobs])
  const result = { loss: value.dataSync()[0]!, grad: grads[logprobs.name]!.arraySync() as number[][], clipFraction }
  tf.dispose([logprobs, value, ...Object.values(grads), ...Object.values(inputs)])
  return result
}

describe('Gspo', () => {
  // Zheng et al. 2025, eq. 5 and 7, worked by hand. Row 0: two action tokens and a masked one,
  // s_0 = exp(((-1 + 1.2) + (-2 + 1.9)) / 2) = exp(0.05) = 1.0512711; row 1: one token,
  // s_1 = exp(-1 + 1.5) = exp(0.5) = 1.6487213.
  const lp = [
    [-1, -2, -0.5],
    [-1, 0, 0]
  ]
  const old = [
    [-1.2, -1.9, -3],
    [-1.5, 0, 0]
  ]
  const mask = [
    [1, 1, 0],
    [1, 0, 0]
  ]
  const adv = [
    [1, 1, 1],
    [-0.5, -0.5, -0.5]
  ]

  it("is the mean over sequences of min(s_i A_i, clip(s_i) A_i), with s_i the sequence's length-normalised ratio", async () => {
    await expectNoLeak(() => {
      // clip 0.2: row 0 unclipped (-A s_0 = -1.0512711); row 1, A < 0: max(0.5 s_1, 0.5 x 1.2) = 0.8243606
      const wide = lossAndGrad({ clipLow: 0.2, clipHigh: 0.2 }, lp, old, adv, mask)
      expect(wide.loss).toBeCloseTo((-1.0512711 + 0.8243606) / 2, 5)
      // gradient: s_i A_i grad log pi, each token 1 / |y_i| of its sequence's, 1 / G over sequences
      const expected = [
        [-1.0512711 / 2 / 2, -1.0512711 / 2 / 2, 0],
        [(0.5 * 1.6487213) / 2, 0, 0]
      ]
      wide.grad.forEach((row, i) => row.forEach((g, j) => expect(g, `grad ${i},${j}`).toBeCloseTo(expected[i]![j]!, 5)))
      expect(wide.clipFraction).toBe(0)
    })
  })

  it("at the paper's clip range (3e-4, 4e-4) both sequences are clipped: the loss is -A clip(s) and no gradient flows", async () => {
    await expectNoLeak(() => {
      const paper = lossAndGrad(_.defaultOptions, lp, old, adv, mask)
      // row 0: A > 0, s_0 > 1.0004: -1.0004; row 1: A < 0, s_1 > 1.0004: max(0.5 s_1, 0.5 x 1.0004) = 0.5 s_1 (unclipped)
      expect(paper.loss).toBeCloseTo((-1.0004 + 0.5 * 1.6487213) / 2, 5)
      expect(paper.grad[0]).toEqual([0, 0, 0])
      expect(paper.grad[1]![0]).toBeCloseTo((0.5 * 1.6487213) / 2, 5)
      // token mean of [L2 > L1] over the three action tokens: row 0's two
      expect(paper.clipFraction).toBeCloseTo(2 / 3, 6)
    })
  })

  it('on sequences of one token it is the clipped policy gradient, loss and gradient', async () => {
    await expectNoLeak(() =>
      fc.assert(
        fc.property(
          fc.array(
            fc.tuple(fc.double({ min: -3, max: 0, noNaN: true }), fc.double({ min: -3, max: 0, noNaN: true }), fc.double({ min: -2, max: 2, noNaN: true })),
            {
              minLength: 1,
              maxLength: 6
            }
          ),
          (rows) => {
            const col = (k: number) => rows.map((r) => [r[k]!, 0])
            const mask = rows.map(() => [1, 0])
            const options = { clipLow: 0.2, clipHigh: 0.28 }
            const gspo = lossAndGrad(options, col(0), col(1), col(2), mask)
            const pg = (() => {
              const init = t2(col(0))
              const logprobs = tf.variable(init)
              init.dispose()
              const inputs = { oldLogprobs: t2(col(1)), advantages: t2(col(2)), mask: t2(mask) }
              const { value, grads } = tf.variableGrads(() => {
                const out = PolicyGradient.loss({ ...options, aggregation: 'seq-mean-token-mean' })({ logprobs, ...inputs })
                tf.dispose([out.clipFraction, out.approxKl])
                return out.loss
              }, [logprobs])
              const r = { loss: value.dataSync()[0]!, grad: grads[logprobs.name]!.arraySync() as number[][] }
              tf.dispose([logprobs, value, ...Object.values(grads), ...Object.values(inputs)])
              return r
            })()
            expect(gspo.loss).toBeCloseTo(pg.loss, 4)
            gspo.grad.forEach((row, i) => row.forEach((g, j) => expect(g).toBeCloseTo(pg.grad[i]![j]!, 4)))
          }
        ),
        { numRuns: 30 }
      )
    )
  })
})
