import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Lora from '../src/Lora.js'
import * as ModelConfig from '../src/ModelConfig.js'
import * as _ from '../src/Policy.js'
import * as Scoring from '../src/Scoring.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const config = ModelConfig.make({ vocab: 30, dModel: 16, layers: 2, heads: 2, ffn: 32, maxLen: 32 })

describe('Policy', () => {
  it('names variables like Hugging Face and counts parameters', () => {
    const policy = _.make(config, 0)
    const names = Object.keys(policy.variables)
    expect(names).toContain('model.embed_tokens.weight')
    expect(names).toContain('model.layers.1.self_attn.q_proj.weight')
    expect(names).toContain('model.layers.0.mlp.gate_proj.weight')
    expect(names).toContain('lm_head.weight')
    const total = Object.values(policy.variables).reduce((n, v) => n + v.size, 0)
    expect(total).toBe(ModelConfig.parameterCount(config))
    policy.dispose()
  })

  it('is deterministic for a seed and two policies coexist', () => {
    const a = _.make(config, 5)
    const b = _.make(config, 5)
    const c = _.make(config, 6)
    const w = (p: _.Policy): Float32Array => p.variables['model.layers.0.self_attn.q_proj.weight']!.dataSync() as Float32Array
    expect(Array.from(w(a))).toEqual(Array.from(w(b)))
    expect(Array.from(w(a))).not.toEqual(Array.from(w(c)))
    ;[a, b, c].forEach((p) => p.dispose())
  })

  it('rejects invalid configurations', () => {
    expect(() => _.make({ ...config, heads: 3 }, 0)).toThrow(/divisible/)
    expect(() => _.make({ ...config, kvHeads: 3, heads: 4, dModel: 16 }, 0)).toThrow(/kvHeads/)
  })

  it('with LoRA starts equal to the base model and trains only the adapters', async () => {
    const base = _.make(config, 9)
    const host = _.toHost(base.variables)
    const adapted = _.fromHost(config, host, { lora: { rank: 2, alpha: 4, targets: ['q_proj', 'v_proj', 'down_proj'] } })
    const ids = tf.tensor2d([[1, 2, 3, 4, 5]], [1, 5], 'int32')
    const trainable = _.trainableVariables(adapted)
    expect(trainable.length).toBe(2 * 3 * config.layers)
    expect(trainable.every((v) => Lora.isAdapter(_.variableName(v)))).toBe(true)
    await expectNoLeak(() =>
      tf.tidy(() => {
        const a = Scoring.tokenLogprobs(base)(ids).logprobs.dataSync()
        const b = Scoring.tokenLogprobs(adapted)(ids).logprobs.dataSync()
        Array.from(a).forEach((v, i) => expect(b[i]).toBeCloseTo(v, 6))
      })
    )
    const qBefore = adapted.variables['model.layers.0.self_attn.q_proj.weight']!.dataSync().slice()
    const optimizer = tf.train.adam(1e-2)
    for (let i = 0; i < 3; i++) optimizer.minimize(() => tf.neg(tf.mean(Scoring.tokenLogprobs(adapted)(ids).logprobs)) as tf.Scalar, false, trainable)
    expect(Array.from(adapted.variables['model.layers.0.self_attn.q_proj.weight']!.dataSync())).toEqual(Array.from(qBefore))
    const moved = tf.tidy(() => {
      const a = Scoring.tokenLogprobs(base)(ids).logprobs
      const b = Scoring.tokenLogprobs(adapted)(ids).logprobs
      return tf.max(tf.abs(tf.sub(a, b))).dataSync()[0]!
    })
    expect(moved).toBeGreaterThan(1e-4)
    optimizer.dispose()
    ids.dispose()
    base.dispose()
    adapted.dispose()
  })
})
