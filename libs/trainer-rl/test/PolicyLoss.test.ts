import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Aggregation from '../src/Aggregation.js'
import { policyTerms, type LossSettings, type PolicyShard } from '../src/internal/shardLoss.js'
import * as _ from '../src/PolicyLoss.js'
import * as Ppo from '../src/Ppo.js'

beforeAll(() => TestBackend.use('cpu'))

const settings = (policyLoss: _.Spec, overrides: Partial<LossSettings> = {}): LossSettings => ({
  temperature: 1,
  policyLoss,
  valueClip: null,
  entropyCoef: 0,
  contextCoef: 0,
  klInLoss: undefined,
  recompute: false,
  ...overrides
})

describe('PolicyLoss', () => {
  it('registers every name under its own name, with options that decode to its defaults', () => {
    expect(_.names).toEqual(['ppo', 'policyGradient', 'gspo', 'cispo'])
    for (const name of _.names) {
      const entry = _.registry[name]
      expect(entry.name).toBe(name)
      expect(E.isRight(entry.Options.decode(entry.defaultOptions)), name).toBe(true)
      expect(E.isRight(_.configure(name)({})), name).toBe(true)
    }
  })

  it('names a bad option by its field', () => {
    const bad = _.configure('ppo')({ clipLo: 0.1 })
    expect(E.isLeft(bad) && bad.left.issues.map((i) => `${i.path}: ${i.message}`)).toEqual(['clipLo: unknown field (did you mean "clipLow"?)'])
    const negative = _.configure('cispo')({ clipHigh: -1 })
    expect(E.isLeft(negative) && negative.left.issues[0]!.path).toBe('clipHigh')
    expect(() => _.perToken({ name: 'gspo', options: { dualClip: 3 } })).toThrow(/dualClip: unknown field/)
  })

  it('training minimises sum(w_pg L) + klCoef sum(w KL) - entropyCoef sum(w H) + contextCoef (-sum(w_ctx log p)), worked by hand', async () => {
    // one row: a prompt token, two action tokens, an observation token
    const shard: PolicyShard = {
      rows: 1,
      time: 4,
      ids: Int32Array.of(1, 2, 3, 4),
      oldLogprobs: Float32Array.of(0, -1.2, -0.5, 0),
      advantages: Float32Array.of(0, 2, -1, 0),
      weights: Float32Array.of(0, 0.5, 0.5, 0),
      pgWeights: Float32Array.of(0, 0.5 * 0.8, 0.5 * 1.5, 0),
      meanWeights: Float32Array.of(0, 0.5, 0.5, 0),
      contextWeights: Float32Array.of(0, 0, 0, 1),
      refLogprobs: Float32Array.of(0, -0.7, -0.5, 0),
      samplerLogprobs: Float32Array.of(0, -1.1, -0.5, 0)
    }
    const ppo = settings({ name: 'ppo', options: {} }, { entropyCoef: 0.1, contextCoef: 0.2, klInLoss: 'k1' })
    await expectNoLeak(() => {
      const scores = { logprobs: tf.tensor2d([[0, -1, -0.5, -2]]), entropy: tf.tensor2d([[0, 1.5, 1, 2]]) }
      const { loss, aux } = policyTerms(ppo, 0.5, shard, scores)
      // token 1: rho = e^0.2 = 1.2214, A = 2: max(-2.4428, -2 x 1.2) = -2.4 (clipped); token 2: rho = 1, A = -1: 1
      // pg = 0.4 x -2.4 + 0.75 x 1 = -0.21; kl (k1) = 0.5 x -0.3 + 0.5 x 0 = -0.15; entropy = 0.5 x 1.5 + 0.5 x 1 = 1.25; context = 2
      expect(aux['policyLoss']!.dataSync()[0]).toBeCloseTo(-0.21, 5)
      expect(aux['klLoss']!.dataSync()[0]).toBeCloseTo(-0.15, 5)
      expect(aux['entropy']!.dataSync()[0]).toBeCloseTo(1.25, 5)
      expect(aux['contextLoss']!.dataSync()[0]).toBeCloseTo(2, 5)
      expect(loss.dataSync()[0]).toBeCloseTo(-0.21 + 0.5 * -0.15 - 0.1 * 1.25 + 0.2 * 2, 5)
      expect(aux['clipFraction']!.dataSync()[0]).toBeCloseTo(0.5, 6)
      expect(aux['approxKl']!.dataSync()[0]).toBeCloseTo(0.5 * -0.2, 5)
      expect(aux['gap']!.dataSync()[0]).toBeCloseTo(0.5 * 0.1, 5)
      tf.dispose([loss, ...Object.values(aux), scores.logprobs, scores.entropy])
    })
  })

  it('for every loss and aggregation, training computes the loss module’s batch loss (Ppo.loss for ppo), and masked tokens get no gradient', async () => {
    const token = fc.tuple(
      fc.double({ min: -3, max: 0, noNaN: true }),
      fc.double({ min: -3, max: 0, noNaN: true }),
      fc.double({ min: -2, max: 2, noNaN: true })
    )
    await expectNoLeak(() =>
      fc.assert(
        fc.property(
          fc.array(fc.array(fc.tuple(token, fc.constantFrom(0, 1)), { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
          fc.constantFrom(..._.names),
          fc.constantFrom(...(Object.keys(Aggregation.Mode.keys) as Aggregation.Mode[])),
          (rows, name, aggregation) => {
            const [B, T] = [rows.length, 3]
            const flat = (f: (x: [[number, number, number], number]) => number) => Float32Array.from(rows.flat().map(f))
            const mask = flat(([, m]) => m)
            const weights = Aggregation.weights(aggregation)(mask, B, T)
            const shard: PolicyShard = {
              rows: B,
              time: T,
              ids: new Int32Array(B * T),
              oldLogprobs: flat(([x]) => x[1]),
              advantages: flat(([x]) => x[2]),
              weights,
              meanWeights: Aggregation.weights('token-mean')(mask, B, T)
            }
            const spec: _.Spec = { name, options: {} }
            const init = tf.tensor2d(
              flat(([x]) => x[0]),
              [B, T]
            )
            const logprobs = tf.variable(init)
            init.dispose()
            const entropy = tf.zeros([B, T]) as tf.Tensor2D
            const { value, grads } = tf.variableGrads(() => {
              const { loss, aux } = policyTerms(settings(spec), 0, shard, { logprobs, entropy })
              tf.dispose(Object.values(aux))
              return loss
            }, [logprobs])
            const inputs = {
              logprobs,
              oldLogprobs: tf.tensor2d(shard.oldLogprobs, [B, T]),
              advantages: tf.tensor2d(shard.advantages, [B, T]),
              mask: tf.tensor2d(mask, [B, T])
            }
            const direct = name === 'ppo' ? Ppo.loss({ ...Ppo.defaultOptions, aggregation })(inputs) : _.loss(spec, aggregation)(inputs)
            expect(value.dataSync()[0]).toBeCloseTo(direct.loss.dataSync()[0]!, 5)
            const g = grads[logprobs.name]!.dataSync()
            mask.forEach((m, i) => (m === 0 ? expect(Math.abs(g[i]!), `${name} gradient at masked token ${i}`).toBe(0) : undefined))
            tf.dispose([value, ...Object.values(grads), ...Object.values(inputs), entropy, direct.loss, direct.clipFraction, direct.approxKl])
          }
        ),
        { numRuns: 60 }
      )
    )
  })
})
