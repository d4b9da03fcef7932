import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Critic.js'
import * as ModelConfig from '../src/ModelConfig.js'
import * as Policy from '../src/Policy.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const config = ModelConfig.make({ vocab: 20, dModel: 16, layers: 1, heads: 2, ffn: 32, maxLen: 16 })

describe('Critic', () => {
  it('separate trunk: copies the policy, trains apart from it, and fits targets', async () => {
    const policy = Policy.make(config, 1)
    const critic = _.make(policy, { shareTrunk: false }, 2)
    expect(Object.keys(critic.variables)).toContain('model.layers.0.self_attn.q_proj.weight')
    expect(Object.keys(critic.variables)).not.toContain('lm_head.weight')
    const ids = tf.tensor2d(
      [
        [1, 2, 3, 4],
        [5, 6, 0, 0]
      ],
      [2, 4],
      'int32'
    )
    const target = tf.tensor2d([
      [0, 0.5, 1, 1],
      [1, 1, 0, 0]
    ])
    const before = policy.variables['model.layers.0.self_attn.q_proj.weight']!.dataSync().slice()
    const adam = tf.train.adam(1e-2)
    const loss = (): tf.Scalar => tf.mean(tf.square(tf.sub(_.values(critic)(ids), target))) as tf.Scalar
    const first = tf.tidy(() => loss().dataSync()[0]!)
    adam.minimize(loss, false, _.trainableVariables(critic)) // creates Adam's moments
    await expectNoLeak(() => {
      for (let i = 0; i < 60; i++) adam.minimize(loss, false, _.trainableVariables(critic))
    })
    expect(tf.tidy(() => loss().dataSync()[0]!)).toBeLessThan(first * 0.2)
    expect(Array.from(policy.variables['model.layers.0.self_attn.q_proj.weight']!.dataSync())).toEqual(Array.from(before))
    ;[ids, target].forEach((t) => t.dispose())
    adam.dispose()
    critic.dispose()
    policy.dispose()
  })

  it('shared trunk: only the head is its own, values follow the policy weights', async () => {
    const policy = Policy.make(config, 1)
    const critic = _.make(policy, { shareTrunk: true }, 2)
    expect(Object.keys(critic.variables).sort()).toEqual(['v_head.bias', 'v_head.weight'])
    await expectNoLeak(() =>
      tf.tidy(() => {
        const ids = tf.tensor2d([[1, 2, 3]], [1, 3], 'int32')
        const a = _.values(critic)(ids).dataSync().slice()
        expect(a.length).toBe(3)
        policy.variables['model.norm.weight']!.assign(tf.fill([16], 2))
        const b = _.values(critic)(ids).dataSync()
        expect(Array.from(b)).not.toEqual(Array.from(a))
      })
    )
    critic.dispose()
    expect(policy.variables['model.norm.weight']!.isDisposed).toBe(false)
    policy.dispose()
    expect(() => _.make(config, { shareTrunk: true }, 0)).toThrow(/policy/)
  })
})
