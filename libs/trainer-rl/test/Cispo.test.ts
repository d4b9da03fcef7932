import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Cispo.js'
import * as Ppo from '../src/Ppo.js'
import type * as PolicyLoss from '../src/PolicyLoss.js'

beforeAll(() => TestBackend.use('cpu'))

const lossAndGrad = (loss: (input: PolicyLoss.TokenInput) => PolicyLoss.Output, lp: number[], old: number[], adv: number[]) => {
  const init = tf.tensor2d([lp])
  const logprobs = tf.variable(init)
  init.dispose()
  const inputs = { oldLogprobs: tf.tensor2d([old]), advantages: tf.tensor2d([adv]), mask: tf.ones([1, lp.length]) }
  let clipFraction = 0
  const { value, grads } = tf.variableGrads(() => {
    const out = loss({ logprobs, ...inputs })
    clipFraction = out.clipFraction.dataSync()[0]!
    tf.dispose([out.clipFraction, out.approxKl])
    return out.loss
  }, [logprobs])
  const result = { loss: value.dataSync()[0]!, grad: Array.from(grads[logprobs.name]!.dataSync()), clipFraction }
  tf.dispose([logprobs, value, ...Object.values(grads), ...Object.values(inputs)])
  return result
}

describe('Cispo', () => {
  // MiniMax-M1 (2025), eq. 4, by hand: token 0 has r = exp(-1 + 1.5) = 1.6487213, weight
  // min(r, 1.2) = 1.2; token 1 has r = exp(-0.5 + 0.4) = 0.9048374, unbounded below.
  const lp = [-1, -0.5]
  const old = [-1.5, -0.4]
  const adv = [2, -1]

  it('is the token mean of -sg[clip(r)] A log pi, and its gradient -clip(r) A per token', async () => {
    await expectNoLeak(() => {
      const out = lossAndGrad(_.loss(_.defaultOptions), lp, old, adv)
      // L_0 = -1.2 x 2 x -1 = 2.4; L_1 = -0.9048374 x -1 x -0.5 = -0.4524187
      expect(out.loss).toBeCloseTo((2.4 - 0.4524187) / 2, 5)
      expect(out.grad[0]).toBeCloseTo((-1.2 * 2) / 2, 5)
      expect(out.grad[1]).toBeCloseTo((0.9048374 * 1) / 2, 5)
      expect(out.clipFraction).toBeCloseTo(0.5, 6)
    })
  })

  it("keeps the gradient of a token PPO's clip drops (A > 0, r above 1 + clipHigh)", async () => {
    await expectNoLeak(() => {
      const ppo = lossAndGrad(Ppo.loss(Ppo.defaultOptions), lp, old, adv)
      const cispo = lossAndGrad(_.loss(_.defaultOptions), lp, old, adv)
      expect(ppo.grad[0]).toBe(0)
      expect(cispo.grad[0]).toBeLessThan(-1)
    })
  })

  it('with a lower bound, a small ratio is lifted to 1 - clipLow', async () => {
    await expectNoLeak(() => {
      const out = lossAndGrad(_.loss({ clipLow: 0.05, clipHigh: 0.2 }), lp, old, adv)
      // token 1: weight max(0.9048374, 0.95) = 0.95; L_1 = -0.95 x -1 x -0.5 = -0.475
      expect(out.loss).toBeCloseTo((2.4 - 0.475) / 2, 5)
      expect(out.grad[1]).toBeCloseTo(0.95 / 2, 5)
      expect(out.clipFraction).toBe(1)
    })
  })
})
