import { expectNoLeak, Services, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as Lora from '../src/Lora.js'
import * as ModelConfig from '../src/ModelConfig.js'
import * as _ from '../src/Policy.js'
import * as Scoring from '../src/Scoring.js'
import { trunk, type WeightOf } from '../src/internal/transformer.js'

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

  it('builder: each weight becomes its variable when put (in any order), adapters load; bad, repeated or missing weights free what was made', async () => {
    const source = _.make(config, 3, { lora: { rank: 2, alpha: 4, targets: ['q_proj'] } })
    tf.tidy(() => Object.entries(source.variables).forEach(([n, v]) => n.includes('lora_B') && v.assign(tf.onesLike(v))))
    const host = [..._.toHost(source.variables)].reverse()
    await expectNoLeak(() => {
      const build = _.builder(config, { lora: { rank: 2, alpha: 4, targets: ['q_proj'] } })
      const before = tf.memory().numTensors
      build.put('model.rotary_emb.inv_freq', { shape: [4], data: new Float32Array(4) }) // not a weight: ignored
      for (const [name, w] of host) {
        const count = tf.memory().numTensors
        build.put(name, w)
        expect(tf.memory().numTensors - count).toBe(name.includes('lora_') ? 0 : 1)
      }
      expect(tf.memory().numTensors - before).toBe(host.length - 4) // the adapters (2 layers x A, B) wait for finish
      const policy = build.finish()
      expect(Object.keys(policy.variables)).toEqual(Object.keys(source.variables))
      for (const [name, v] of Object.entries(policy.variables)) expect(v.dataSync(), name).toEqual(source.variables[name]!.dataSync())
      policy.dispose()
      const named = (i: number): [string, _.HostTensor] => host.filter(([n]) => !n.includes('lora_'))[i]!
      const twice = _.builder(config)
      twice.put(...named(1))
      expect(() => twice.put(...named(1))).toThrow(/given twice/)
      const shaped = _.builder(config)
      shaped.put(...named(1))
      expect(() => shaped.put(named(2)[0], { shape: [1, 2], data: new Float32Array(2) })).toThrow(/has shape \[1, 2\], expected/)
      const missing = _.builder(config)
      missing.put(...named(1))
      expect(() => missing.finish()).toThrow(/missing weight/)
    })
    source.dispose()
  })

  it.runIf(Services.available('tensorflow'))(
    `on tensorflow a weight's host array is let go when its variable is made (not at first use) ${Services.tag('tensorflow')}`,
    async () => {
      await TestBackend.use('tensorflow')
      const source = _.make(config, 1)
      const host = _.toHost(source.variables)
      source.dispose()
      const before = tf.memory().numTensors
      const policy = _.fromHost(config, host)
      expect(tf.memory().numTensors - before).toBe(Object.keys(policy.variables).length) // nothing else is left
      // the backend's record of each variable: tfjs-node holds `values` (the host array) until the tensor is first used
      const held = Object.values(policy.variables).filter(
        (v) => (tf.engine().backend as unknown as { tensorMap: { get: (id: object) => { values: unknown } } }).tensorMap.get(v.dataId).values != null
      )
      expect(held.map((v) => v.name)).toEqual([])
      policy.dispose()
      await TestBackend.use('cpu')
    }
  )

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

  it('runs adapted products unmerged (x W + s (x A) B) with the outputs and gradients of the merged weights', async () => {
    const configs = [
      config,
      ModelConfig.make({ vocab: 30, dModel: 16, layers: 2, heads: 2, ffn: 32, maxLen: 32, qkvBias: true, qkNorm: 'head', activation: 'geglu' })
    ]
    for (const c of configs) {
      const policy = _.fromHost(c, _.toHost(_.make(c, 3).variables), { lora: { ...Lora.defaultOptions, rank: 2, alpha: 6 } })
      // B starts at zero: give the adapters values so that both of their factors matter
      _.trainableVariables(policy).forEach((v, i) => v.assign(tf.randomNormal(v.shape, 0, 0.1, 'float32', i)))
      const ids = tf.tensor2d([[1, 2, 3, 4, 5, 6]], [1, 6], 'int32')
      const probe = tf.randomNormal([6, c.dModel], 0, 1, 'float32', 7)
      const w = _.weightOf(policy)
      const merged: WeightOf = (name) => w(name)
      expect(w.adapter).toBeDefined()
      const vars = _.trainableVariables(policy)
      const run = (weights: WeightOf): { value: Float32Array; grads: Float32Array[] } => {
        const { value, grads } = tf.variableGrads(() => tf.sum(tf.mul(trunk(c, weights, ids), probe)) as tf.Scalar, vars)
        const out = { value: value.dataSync() as Float32Array, grads: vars.map((v) => grads[v.name]!.dataSync() as Float32Array) }
        tf.dispose([value, ...Object.values(grads)])
        return out
      }
      await expectNoLeak(() => void run(w))
      const a = run(w)
      const b = run(merged)
      // a wrong scale, transpose or factor is off by O(1) of the largest entry; float32 reassociation by ~1e-6
      const close = (x: ArrayLike<number>, y: ArrayLike<number>): void => {
        const top = Math.max(...Array.from(y, Math.abs))
        Array.from(x).forEach((v, j) => expect(Math.abs(v - y[j]!)).toBeLessThan(1e-4 * top))
      }
      close(a.value, b.value)
      a.grads.forEach((g, i) => close(g, b.grads[i]!))
      expect(a.grads.some((g) => g.some((x) => Math.abs(x) > 1e-3))).toBe(true)
      tf.dispose([ids, probe])
      policy.dispose()
    }
  })
})
