import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import * as E from 'fp-ts/lib/Either.js'
import * as Aggregation from '../src/Aggregation.js'
import * as PolicyGradient from '../src/PolicyGradient.js'
import * as _ from '../src/Ppo.js'

beforeAll(() => TestBackend.use('cpu'))

// Reference implementation in plain numbers (verl compute_policy_loss_vanilla, token-mean).
const reference = (lp: number[], old: number[], adv: number[], mask: number[], o: _.Options): number => {
  let sum = 0
  let count = 0
  lp.forEach((l, i) => {
    const rho = Math.exp(Math.min(20, Math.max(-20, l - old[i]!)))
    const a = adv[i]!
    const l1 = -a * rho
    const l2 = -a * Math.min(1 + o.clipHigh, Math.max(1 - o.clipLow, rho))
    let lc = Math.max(l1, l2)
    if (o.dualClip !== null && a < 0) lc = Math.min(-a * o.dualClip, lc)
    sum += lc * mask[i]!
    count += mask[i]!
  })
  return sum / Math.max(count, 1)
}

describe('Ppo', () => {
  it('equals the reference formula with dual clip on random inputs', async () => {
    await expectNoLeak(() =>
      fc.assert(
        fc.property(
          fc.array(
            fc.tuple(
              fc.double({ min: -3, max: 0, noNaN: true }),
              fc.double({ min: -3, max: 0, noNaN: true }),
              fc.double({ min: -2, max: 2, noNaN: true }),
              fc.constantFrom(0, 1)
            ),
            { minLength: 1, maxLength: 12 }
          ),
          fc.boolean(),
          (rows, dual) => {
            const options: _.Options = { ..._.defaultOptions, clipHigh: 0.28, dualClip: dual ? 3 : null }
            const [lp, old, adv, mask] = [0, 1, 2, 3].map((k) => rows.map((r) => r[k]!)) as [number[], number[], number[], number[]]
            const t = (x: number[]) => tf.tensor2d(x, [1, x.length])
            const inputs = { logprobs: t(lp), oldLogprobs: t(old), advantages: t(adv), mask: t(mask) }
            const out = _.loss(options)(inputs)
            expect(out.loss.dataSync()[0]).toBeCloseTo(reference(lp, old, adv, mask, options), 4)
            tf.dispose([out.loss, out.clipFraction, out.approxKl, ...Object.values(inputs)])
          }
        )
      )
    )
  })

  it('dual clip bounds the loss of a negative advantage with a huge ratio', async () => {
    await expectNoLeak(() => {
      const inputs = { logprobs: tf.tensor2d([[0]]), oldLogprobs: tf.tensor2d([[-5]]), advantages: tf.tensor2d([[-1]]), mask: tf.tensor2d([[1]]) }
      const withDual = _.loss(_.defaultOptions)(inputs)
      const without = _.loss({ ..._.defaultOptions, dualClip: null })(inputs)
      expect(withDual.loss.dataSync()[0]).toBeCloseTo(3, 5)
      expect(without.loss.dataSync()[0]).toBeGreaterThan(100)
      expect(withDual.clipFraction.dataSync()[0]).toBe(0)
      tf.dispose([withDual.loss, withDual.clipFraction, withDual.approxKl, without.loss, without.clipFraction, without.approxKl, ...Object.values(inputs)])
    })
  })

  it('has gradient -A on the log-prob of an on-policy token and none on masked tokens', async () => {
    await expectNoLeak(() => {
      const init = tf.tensor2d([[-1, -2, -0.5]])
      const lp = tf.variable(init)
      init.dispose()
      const old = tf.tensor2d([[-1, -2, -0.5]])
      const adv = tf.tensor2d([[2, 5, -1]])
      const mask = tf.tensor2d([[1, 0, 1]])
      const { grads, value } = tf.variableGrads(() => _.loss(_.defaultOptions)({ logprobs: lp, oldLogprobs: old, advantages: adv, mask }).loss, [lp])
      expect(Array.from(grads[lp.name]!.dataSync()).map((x) => Math.round(x * 1e5) / 1e5 + 0)).toEqual([-1, 0, 0.5])
      tf.dispose([lp, old, adv, mask, value, ...Object.values(grads)])
    })
  })

  it('its options codec rejects a dual-clip constant <= 1, naming it', () => {
    expect(E.isLeft(_.Options.decode({ ..._.defaultOptions, dualClip: 1 }))).toBe(true)
    expect(E.isRight(_.Options.decode({ ..._.defaultOptions, dualClip: null }))).toBe(true)
    expect(E.isRight(_.Options.decode(_.defaultOptions))).toBe(true)
  })
})

describe('PolicyGradient', () => {
  it("is PPO's surrogate without the dual clip: equal losses and metrics on random inputs", async () => {
    await expectNoLeak(() =>
      fc.assert(
        fc.property(
          fc.array(
            fc.tuple(
              fc.double({ min: -3, max: 0, noNaN: true }),
              fc.double({ min: -3, max: 0, noNaN: true }),
              fc.double({ min: -2, max: 2, noNaN: true }),
              fc.constantFrom(0, 1)
            ),
            { minLength: 1, maxLength: 12 }
          ),
          fc.constantFrom(...(Object.keys(Aggregation.Mode.keys) as Aggregation.Mode[])),
          (rows, aggregation) => {
            const [lp, old, adv, mask] = [0, 1, 2, 3].map((k) => rows.map((r) => r[k]!)) as [number[], number[], number[], number[]]
            const t = (x: number[]) => tf.tensor2d(x, [1, x.length])
            const inputs = { logprobs: t(lp), oldLogprobs: t(old), advantages: t(adv), mask: t(mask) }
            const pg = PolicyGradient.loss({ clipLow: 0.2, clipHigh: 0.28, aggregation })(inputs)
            const ppo = _.loss({ clipLow: 0.2, clipHigh: 0.28, dualClip: null, aggregation })(inputs)
            expect(pg.loss.dataSync()[0]).toBeCloseTo(ppo.loss.dataSync()[0]!, 6)
            expect(pg.clipFraction.dataSync()[0]).toBeCloseTo(ppo.clipFraction.dataSync()[0]!, 6)
            if (aggregation === 'token-mean')
              expect(pg.loss.dataSync()[0]).toBeCloseTo(reference(lp, old, adv, mask, { ..._.defaultOptions, clipHigh: 0.28, dualClip: null }), 4)
            tf.dispose([pg.loss, pg.clipFraction, pg.approxKl, ppo.loss, ppo.clipFraction, ppo.approxKl, ...Object.values(inputs)])
          }
        )
      )
    )
  })
  it('unlike PPO, does not bound the loss of a negative advantage with a huge ratio', async () => {
    await expectNoLeak(() => {
      const inputs = { logprobs: tf.tensor2d([[0]]), oldLogprobs: tf.tensor2d([[-5]]), advantages: tf.tensor2d([[-1]]), mask: tf.tensor2d([[1]]) }
      const out = PolicyGradient.loss(PolicyGradient.defaultOptions)(inputs)
      expect(out.loss.dataSync()[0]).toBeCloseTo(Math.exp(5), 2)
      tf.dispose([out.loss, out.clipFraction, out.approxKl, ...Object.values(inputs)])
    })
  })
})
