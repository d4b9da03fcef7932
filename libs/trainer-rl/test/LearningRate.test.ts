import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { Policy } from '@mtrl/policy'
import { TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Config from '../src/Config.js'
import * as Trainer from '../src/Trainer.js'
import { makeToyRun, step, toyConfig } from './fixtures/toyRun.js'

beforeAll(() => TestBackend.use('cpu'))

const snapshot = (variables: ReadonlyArray<tf.Variable>): number[][] => variables.map((v) => Array.from(v.dataSync()))

describe('the policy learning-rate schedule', () => {
  it('warms up linearly, then decays by a cosine to its floor at decayIterations and stays there (hand-derived values)', () => {
    const lr = Trainer.policyLrAt({ lr: 1e-3, warmupIterations: 2, minLrRatio: 0.1, decayIterations: 6 })
    const expected = [
      5e-4,
      1e-3,
      1e-3,
      1e-3 * (0.1 + (0.9 * (1 + Math.cos(Math.PI / 4))) / 2),
      5.5e-4,
      1e-3 * (0.1 + (0.9 * (1 + Math.cos((3 * Math.PI) / 4))) / 2),
      1e-4,
      1e-4,
      1e-4
    ]
    expected.forEach((e, i) => expect(lr(i), `iteration ${i}`).toBeCloseTo(e, 12))
  })

  it('with minLrRatio 1 is the warm-up alone (the behaviour before the decay existed), whatever decayIterations says', () => {
    for (const decayIterations of [0, 3, 50]) {
      const lr = Trainer.policyLrAt({ lr: 3e-4, warmupIterations: 4, minLrRatio: 1, decayIterations })
      for (let i = 0; i < 12; i++) expect(lr(i)).toBeCloseTo(3e-4 * Math.min(1, (i + 1) / 4), 15)
    }
    const flat = Trainer.policyLrAt({ lr: 3e-4, warmupIterations: 0, minLrRatio: 1, decayIterations: 0 })
    for (let i = 0; i < 5; i++) expect(flat(i)).toBe(3e-4)
  })

  it('a decay needs an iteration to end at: minLrRatio < 1 without decayIterations past the warm-up is refused, naming the field', () => {
    const decoded = Decode.decode('trainer configuration', Config.Config)
    const refused = decoded(Config.make({ policy: { minLrRatio: 0.1, decayIterations: 0 } }))
    expect(E.isLeft(refused) && refused.left.issues[0]!.path).toBe('policy.decayIterations')
    expect(E.isLeft(decoded(Config.make({ policy: { minLrRatio: 0.1, warmupIterations: 5, decayIterations: 5 } })))).toBe(true)
    expect(E.isRight(decoded(Config.make({ policy: { minLrRatio: 0.1, decayIterations: 6 } })))).toBe(true)
  })

  it('reaches the optimizer: at a floor of 0 the policy stops moving, and lr/policy logs the rate used', async () => {
    const run = makeToyRun(toyConfig('reinforce++', 'corridor', { policy: { minLrRatio: 0, decayIterations: 3 } }), 'corridor')
    const weights = (): number[][] => snapshot(Policy.trainableVariables(run.policy))
    const before = weights()
    const rates: number[] = []
    for (let i = 0; i < 3; i++) rates.push((await step(run.trainer))['lr/policy'])
    expect(rates).toEqual([0, 1, 2].map(Trainer.policyLrAt({ lr: 3e-2, warmupIterations: 0, minLrRatio: 0, decayIterations: 3 })))
    expect(rates[0]).toBe(3e-2)
    const afterFirst = weights()
    expect(afterFirst).not.toEqual(before)
    for (let i = 0; i < 2; i++) {
      const m = await step(run.trainer)
      expect(m['lr/policy']).toBe(0)
      expect(Number.isFinite(m['loss/policy'])).toBe(true)
    }
    expect(weights()).toEqual(afterFirst)
    run.dispose()
  })
})
