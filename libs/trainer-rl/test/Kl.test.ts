import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Kl.js'
import * as KlController from '../src/KlController.js'

beforeAll(() => TestBackend.use('cpu'))

describe('Kl', () => {
  it('k1, k2, k3 follow their formulas and the tensor and array versions agree', async () => {
    await expectNoLeak(() =>
      fc.assert(
        fc.property(
          fc.array(fc.tuple(fc.double({ min: -5, max: 0, noNaN: true }), fc.double({ min: -5, max: 0, noNaN: true })), { minLength: 1, maxLength: 8 }),
          (pairs) => {
            const lp = Float32Array.from(pairs.map((p) => p[0]))
            const ref = Float32Array.from(pairs.map((p) => p[1]))
            for (const estimator of ['k1', 'k2', 'k3'] as const) {
              const a = tf.tensor2d(lp, [1, lp.length])
              const b = tf.tensor2d(ref, [1, ref.length])
              const out = _.estimate(estimator)(a, b)
              const tensorValues = out.dataSync()
              const arrayValues = _.estimateArray(estimator)(lp, ref)
              pairs.forEach((_p, i) => {
                const d = lp[i]! - ref[i]!
                const expected = estimator === 'k1' ? d : estimator === 'k2' ? 0.5 * d * d : Math.min(10, Math.exp(-d) + d - 1)
                expect(arrayValues[i]).toBeCloseTo(expected, 3)
                expect(tensorValues[i]).toBeCloseTo(arrayValues[i]!, 3)
                if (estimator !== 'k1') expect(arrayValues[i]).toBeGreaterThanOrEqual(-1e-6)
              })
              tf.dispose([a, b, out])
            }
          }
        )
      )
    )
  })

  it('k3 is clamped to 10 for extreme differences', () => {
    expect(_.estimateArray('k3')(Float32Array.of(-50), Float32Array.of(0))[0]).toBe(10)
  })
})

describe('KlController', () => {
  it('a fixed controller never changes', () => {
    expect(KlController.update(5, 100)(KlController.fixed(0.1))).toEqual(KlController.fixed(0.1))
  })
  it('an adaptive controller raises beta when KL exceeds the target and lowers it below', () => {
    const c = KlController.adaptive(0.1, 0.01, 100)
    expect(KlController.update(0.1, 10)(c).coef).toBeCloseTo(0.1 * (1 + 0.2 * 0.1))
    expect(KlController.update(0.0, 10)(c).coef).toBeCloseTo(0.1 * (1 - 0.2 * 0.1))
  })
})
