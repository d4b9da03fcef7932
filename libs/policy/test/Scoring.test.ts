import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Critic from '../src/Critic.js'
import * as ModelConfig from '../src/ModelConfig.js'
import * as Policy from '../src/Policy.js'
import * as _ from '../src/Scoring.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const config = ModelConfig.make({ vocab: 30, dModel: 16, layers: 1, heads: 2, ffn: 32, maxLen: 32 })

describe('Scoring', () => {
  it('chunked (3 rows a chunk) gives the log-probs, entropies and gradients of the plain head, with and without entropies', async () => {
    const policy = Policy.make({ ...config, logitSoftcap: 2 }, 2)
    const variables = Policy.trainableVariables(policy)
    await expectNoLeak(() => {
      tf.tidy(() => {
        const ids = tf.tensor2d(
          [
            [1, 4, 9, 2, 0],
            [3, 3, 8, 7, 5]
          ],
          [2, 5],
          'int32'
        )
        const run = (options: _.Options) => {
          const { value, grads } = tf.variableGrads(() => {
            const s = _.tokenLogprobs(policy, options)(ids, 0.7)
            return tf.add(tf.sum(tf.mul(s.logprobs, 1.3)), tf.sum(tf.mul(s.entropy, 0.4))) as tf.Scalar
          }, variables)
          return [value, ...variables.map((v) => grads[v.name]!)]
        }
        for (const entropy of [true, false]) {
          const plain = run({ entropy })
          const chunked = run({ entropy, chunkRows: 3 })
          plain.forEach((t, i) => expect(tf.max(tf.abs(tf.sub(t, chunked[i]!))).dataSync()[0]).toBeLessThan(1e-5))
        }
      })
    })
    policy.dispose()
  })

  it('recompute (gradient checkpointing) gives the loss and gradients of the plain pass, full or LoRA, with a shared critic, and holds less between the passes', async () => {
    const deep = ModelConfig.make({ vocab: 30, dModel: 16, layers: 3, heads: 2, kvHeads: 1, ffn: 32, maxLen: 64, qkvBias: true, canonSpan: 2 })
    for (const lora of [undefined, { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj', 'down_proj'] as const }]) {
      const policy = Policy.make(deep, 5, lora === undefined ? {} : { lora })
      // non-zero adapters and canon weights: every weight's gradient path is exercised
      tf.tidy(() =>
        Object.entries(policy.variables).forEach(
          ([n, v], i) => (n.includes('lora_B') || n.includes('canon')) && v.assign(tf.randomNormal(v.shape, 0, 0.2, 'float32', i))
        )
      )
      const critic = Critic.make(policy, { shareTrunk: true }, 6)
      const variables = [...Policy.trainableVariables(policy), ...Critic.trainableVariables(critic)]
      const ids = tf.tensor2d(
        [Array.from({ length: 40 }, (_, i) => (i * 7 + 3) % 30), Array.from({ length: 40 }, (_, i) => (i * 11 + 1) % 30)],
        [2, 40],
        'int32'
      )
      const run = (recompute: boolean): tf.Tensor[] => {
        const { value, grads } = tf.variableGrads(() => {
          const s = _.tokenLogprobsWithValues(policy, critic, { recompute, valueGradient: 'trunk' })(ids, 0.8)
          return tf.addN([tf.sum(tf.mul(s.logprobs, 1.3)), tf.sum(tf.mul(s.entropy, 0.4)), tf.sum(tf.square(s.values))]) as tf.Scalar
        }, variables)
        return [value, ...variables.map((v) => grads[v.name]!)]
      }
      await expectNoLeak(async () => {
        const plain = run(false)
        const recomputed = run(true)
        recomputed.forEach((t, i) => {
          const scale = Math.max(
            1e-3,
            tf.tidy(() => tf.max(tf.abs(plain[i]!)).dataSync()[0]!)
          )
          expect(tf.tidy(() => tf.max(tf.abs(tf.sub(t, plain[i]!))).dataSync()[0]!) / scale, variables[i - 1]?.name ?? 'loss').toBeLessThan(1e-5)
        })
        tf.dispose([...plain, ...recomputed])
        const peak = async (recompute: boolean): Promise<number> => {
          const info = await tf.profile(() => tf.dispose(run(recompute)))
          return info.peakBytes
        }
        expect(await peak(true)).toBeLessThan(await peak(false))
      })
      ids.dispose()
      critic.dispose()
      policy.dispose()
    }
  })

  it('matches log-softmax of the logits, with 0 at t = 0, and entropies are non-negative', async () => {
    const policy = Policy.make(config, 1)
    await expectNoLeak(() => {
      tf.tidy(() => {
        const ids = tf.tensor2d(
          [
            [1, 4, 9, 2, 0],
            [3, 3, 8, 0, 0]
          ],
          [2, 5],
          'int32'
        )
        const { logprobs, entropy } = _.tokenLogprobs(policy)(ids, 0.7)
        const logits = Policy.logits(policy)(ids)
        const lp = tf.logSoftmax(tf.div(logits, 0.7)).arraySync() as number[][][]
        const got = logprobs.arraySync()
        const ent = entropy.arraySync()
        const idsA = ids.arraySync()
        for (let b = 0; b < 2; b++) {
          expect(got[b]![0]).toBe(0)
          expect(ent[b]![0]).toBe(0)
          for (let t = 1; t < 5; t++) {
            expect(got[b]![t]).toBeCloseTo(lp[b]![t - 1]![idsA[b]![t]!]!, 5)
            const p = lp[b]![t - 1]!.map(Math.exp)
            expect(ent[b]![t]).toBeCloseTo(-p.reduce((s, pi, i) => s + pi * lp[b]![t - 1]![i]!, 0), 4)
          }
        }
      })
    })
    policy.dispose()
  })

  it('right padding does not change the scores of the real tokens', async () => {
    const policy = Policy.make(config, 2)
    await expectNoLeak(() =>
      tf.tidy(() => {
        const short = _.tokenLogprobs(policy)(tf.tensor2d([[5, 6, 7]], [1, 3], 'int32')).logprobs.arraySync()[0]!
        const padded = _.tokenLogprobs(policy)(tf.tensor2d([[5, 6, 7, 0, 0, 0]], [1, 6], 'int32')).logprobs.arraySync()[0]!
        short.forEach((v, t) => expect(padded[t]).toBeCloseTo(v, 5))
      })
    )
    policy.dispose()
  })

  it('is differentiable: SFT steps with Adam lower the loss and leak nothing over 100 steps', async () => {
    const policy = Policy.make(config, 3)
    const ids = tf.tensor2d(
      [
        [1, 2, 3, 4, 5, 6, 7, 8],
        [8, 7, 6, 5, 4, 3, 2, 1]
      ],
      [2, 8],
      'int32'
    )
    const optimizer = tf.train.adam(1e-2)
    const loss = (): tf.Scalar => tf.neg(tf.mean(_.tokenLogprobs(policy, { entropy: false })(ids).logprobs)) as tf.Scalar
    // warm-up step creates the optimizer's moments
    optimizer.minimize(loss, false, Policy.trainableVariables(policy))
    const first = tf.tidy(() => loss().dataSync()[0]!)
    await expectNoLeak(() => {
      for (let i = 0; i < 100; i++) optimizer.minimize(loss, false, Policy.trainableVariables(policy))
    })
    const last = tf.tidy(() => loss().dataSync()[0]!)
    expect(last).toBeLessThan(first * 0.5)
    optimizer.dispose()
    ids.dispose()
    policy.dispose()
  })

  it('one token (or none) predicts nothing: all-zero scores of its shape', () => {
    const policy = Policy.make(config, 1)
    for (const T of [0, 1]) {
      const ids = tf.tensor2d(new Int32Array(2 * T), [2, T], 'int32')
      const { logprobs, entropy } = _.tokenLogprobs(policy)(ids, 0.7)
      expect(logprobs.shape).toEqual([2, T])
      expect(Array.from(entropy.dataSync()).every((x) => x === 0)).toBe(true)
      tf.dispose([ids, logprobs, entropy])
    }
    policy.dispose()
  })

  it("with values: one pass gives tokenLogprobs' scores and Critic.values' values; the value gradient reaches the head only", async () => {
    const policy = Policy.make(config, 1)
    const critic = Critic.make(policy, { shareTrunk: true }, 2)
    const ids = tf.tensor2d(
      [
        [1, 2, 3, 4, 5],
        [6, 7, 8, 0, 0]
      ],
      [2, 5],
      'int32'
    )
    const both = _.tokenLogprobsWithValues(policy, critic)(ids, 0.7)
    const alone = _.tokenLogprobs(policy)(ids, 0.7)
    const values = Critic.values(critic)(ids)
    const close = (a: tf.Tensor, b: tf.Tensor) => Array.from(a.dataSync()).forEach((x, i) => expect(x, `index ${i}`).toBeCloseTo(b.dataSync()[i]!, 5))
    close(both.logprobs, alone.logprobs)
    close(both.entropy, alone.entropy)
    close(both.values, values)
    tf.dispose([both.logprobs, both.entropy, both.values, alone.logprobs, alone.entropy, values])
    // d(sum of values) / d(trunk) is 0 through the shared pass (a stop-gradient), and not 0 through Critic.values
    const trunk = policy.variables['model.layers.0.self_attn.q_proj.weight']!
    const head = critic.variables['v_head.weight']!
    const norms = (f: () => tf.Scalar) => {
      const { grads, value } = tf.variableGrads(f, [trunk, head])
      const out = [trunk, head].map((v) => tf.tidy(() => tf.norm(grads[v.name]!).dataSync()[0]!))
      tf.dispose([value, ...Object.values(grads)])
      return out
    }
    const [sharedTrunk, sharedHead] = norms(() => tf.sum(_.tokenLogprobsWithValues(policy, critic)(ids).values))
    const [directTrunk] = norms(() => tf.sum(Critic.values(critic)(ids)))
    const [jointTrunk] = norms(() => tf.sum(_.tokenLogprobsWithValues(policy, critic, { valueGradient: 'trunk' })(ids).values))
    expect(jointTrunk).toBeCloseTo(directTrunk!, 4)
    expect(sharedTrunk).toBe(0)
    expect(sharedHead).toBeGreaterThan(0)
    expect(directTrunk).toBeGreaterThan(0)
    // a separate critic, or another policy's, is refused
    const separate = Critic.make(policy, { shareTrunk: false }, 3)
    expect(() => _.tokenLogprobsWithValues(policy, separate)(ids)).toThrow(/share this policy's trunk/)
    separate.dispose()
    critic.dispose()
    ids.dispose()
    policy.dispose()
  })
  it('entropyGradient false: the entropies are the same values and carry no gradient, chunked with a frozen (LoRA) head or plain', async () => {
    for (const chunkRows of [undefined, 7]) {
      const policy = Policy.make(config, 4, { lora: { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj'] } })
      const variables = Policy.trainableVariables(policy)
      Object.entries(policy.variables).forEach(([n, v], i) => n.includes('lora_B') && v.assign(tf.randomNormal(v.shape, 0, 0.2, 'float32', i)))
      const ids = tf.tensor2d(
        Array.from({ length: 2 * 12 }, (_, i) => (i * 7 + 3) % 30),
        [2, 12],
        'int32'
      )
      await expectNoLeak(() => {
        const run = (entropyGradient: boolean | undefined, withEntropy: boolean): { values: number[]; grads: number[][] } => {
          let values: number[] = []
          const { value, grads } = tf.variableGrads(() => {
            const s = _.tokenLogprobs(policy, {
              ...(entropyGradient === undefined ? {} : { entropyGradient }),
              ...(chunkRows === undefined ? {} : { chunkRows })
            })(ids, 0.9)
            values = Array.from(s.entropy.dataSync())
            return tf.addN([tf.sum(s.logprobs), tf.sum(tf.mul(s.entropy, withEntropy ? 0.7 : 0))]) as tf.Scalar
          }, variables)
          const out = { values, grads: variables.map((v) => Array.from(grads[v.name]!.dataSync())) }
          tf.dispose([value, ...Object.values(grads).filter((g): g is tf.Tensor => g !== null)])
          return out
        }
        const metric = run(false, true)
        const logprobsOnly = run(true, false)
        const bonus = run(true, true)
        expect(metric.values).toEqual(bonus.values)
        const diff = (a: number[][], b: number[][]): number => Math.max(...a.flatMap((g, i) => g.map((x, j) => Math.abs(x - b[i]![j]!))))
        // the entropy term adds nothing to the gradient when it is a metric, and something when it is not
        expect(diff(metric.grads, logprobsOnly.grads)).toBeLessThan(1e-6)
        expect(diff(bonus.grads, logprobsOnly.grads)).toBeGreaterThan(1e-4)
      })
      ids.dispose()
      policy.dispose()
    }
  })
})
