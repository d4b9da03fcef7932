import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Checkpoint.js'
import * as Critic from '../src/Critic.js'
import * as HuggingFace from '../src/HuggingFace.js'
import * as ModelConfig from '../src/ModelConfig.js'
import * as OptimizerState from '../src/OptimizerState.js'
import * as Policy from '../src/Policy.js'
import * as Scoring from '../src/Scoring.js'
import * as WordTokenizer from '../src/WordTokenizer.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/hf')
const tokenizer = WordTokenizer.build({ maxVocab: 300, minCount: 1 })(['go north', 'open the door', 'take the key'])
const config = ModelConfig.make({
  vocab: tokenizer.vocabSize,
  dModel: 16,
  layers: 2,
  heads: 2,
  ffn: 32,
  maxLen: 32,
  positional: 'learned',
  norm: 'layernorm',
  activation: 'gelu'
})
const bits = (v: tf.Tensor): number[] => Array.from(new Uint32Array(new Float32Array(v.dataSync()).buffer))
const sameVariables = (a: Policy.NamedVariables, b: Policy.NamedVariables): void => {
  expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort())
  for (const [name, v] of Object.entries(a)) expect(bits(b[name]!)).toEqual(bits(v))
}
const scratch = (): string => join(mkdtempSync(join(tmpdir(), 'ckpt-')), 'run')

describe('Checkpoint', () => {
  it('round-trips policy, critic, tokenizer, extra and Adam state bit-exactly, and resumes identically', async () => {
    const dir = scratch()
    const policy = Policy.make(config, 1, { tokenizer })
    const critic = Critic.make(policy, { shareTrunk: false }, 2)
    const ids = tf.tensor2d([[1, 7, 8, 9, 10, 11]], [1, 6], 'int32')
    const vars = [...Policy.trainableVariables(policy), ...Critic.trainableVariables(critic)]
    const loss = (p: Policy.Policy, c: Critic.Critic) => (): tf.Scalar =>
      tf.add(tf.neg(tf.mean(Scoring.tokenLogprobs(p)(ids).logprobs)), tf.mean(tf.square(Critic.values(c)(ids)))) as tf.Scalar
    const adam = tf.train.adam(1e-2)
    for (let i = 0; i < 3; i++) adam.minimize(loss(policy, critic), false, vars)
    const state = await OptimizerState.capture(adam, { policy, critic }, vars)()
    expect(state.step).toBe(3)
    const saved = await _.save(dir, { policy, critic, optimizerState: state, optimizerStates: { spare: state }, extra: { iteration: 3 } })()
    expect(saved._tag).toBe('Right')
    expect(readdirSync(dir).sort()).toEqual([
      'config.json',
      'critic.safetensors',
      'model.safetensors',
      'optimizer.safetensors',
      'optimizer.spare.safetensors',
      'tokenizer.json'
    ])
    expect(await _.isCheckpoint(dir)).toBe(true)

    const loaded = await _.load(dir)()
    if (loaded._tag === 'Left') throw new Error(JSON.stringify(loaded.left))
    const back = loaded.right
    sameVariables(policy.variables, back.policy.variables)
    sameVariables(critic.variables, back.critic!.variables)
    expect(back.extra).toEqual({ iteration: 3 })
    expect(back.optimizerStates?.['spare']?.step).toBe(3)
    expect([...back.optimizerStates!['spare']!.moments.keys()].sort()).toEqual([...state.moments.keys()].sort())
    expect(back.policy.config).toEqual(config)
    expect(Array.from(back.policy.tokenizer!.encode('open the door'))).toEqual(Array.from(tokenizer.encode('open the door')))

    // resume: one more step on the original and on the restored copy gives the same weights
    const backVars = [...Policy.trainableVariables(back.policy), ...Critic.trainableVariables(back.critic!)]
    const adam2 = tf.train.adam(1e-2)
    await OptimizerState.restore(adam2, back.optimizerState!, { policy: back.policy, critic: back.critic! }, backVars)()
    adam.minimize(loss(policy, critic), false, vars)
    adam2.minimize(loss(back.policy, back.critic!), false, backVars)
    sameVariables(policy.variables, back.policy.variables)

    // overwriting is atomic and leaves no temporary directories behind
    expect((await _.save(dir, { policy })())._tag).toBe('Right')
    expect(readdirSync(dirname(dir))).toEqual(['run'])
    ;[adam, adam2].forEach((a) => a.dispose())
    ids.dispose()
    ;[policy, back.policy].forEach((p) => p.dispose())
    ;[critic, back.critic!].forEach((c) => c.dispose())
  })

  it('round-trips a Hugging Face model with LoRA adapters and its tokenizer', async () => {
    const loaded = await HuggingFace.load(join(fixtures, 'tiny-qwen2'), { lora: { rank: 2, alpha: 4, targets: ['q_proj', 'up_proj'] } })()
    if (loaded._tag === 'Left') throw new Error(JSON.stringify(loaded.left))
    const policy = loaded.right
    tf.tidy(() => policy.variables['model.layers.0.self_attn.q_proj.lora_B.weight']!.assign(tf.randomNormal([64, 2], 0, 0.1, 'float32', 3)))
    const dir = scratch()
    expect((await _.save(dir, { policy })())._tag).toBe('Right')
    const before = tf.memory().numTensors
    const back = await _.load(dir)()
    if (back._tag === 'Left') throw new Error(JSON.stringify(back.left))
    expect(tf.memory().numTensors - before).toBe(Object.keys(back.right.policy.variables).length)
    sameVariables(policy.variables, back.right.policy.variables)
    expect(back.right.policy.lora).toEqual(policy.lora)
    expect(back.right.policy.tokenizer!.encode('héllo').length).toBeGreaterThan(0)
    await expectNoLeak(() =>
      tf.tidy(() => {
        const ids = tf.tensor2d([[5, 6, 7]], [1, 3], 'int32')
        expect(bits(Scoring.tokenLogprobs(back.right.policy)(ids).logprobs)).toEqual(bits(Scoring.tokenLogprobs(policy)(ids).logprobs))
      })
    )
    policy.dispose()
    back.right.policy.dispose()
  })

  it('reports a bad config.json with the path of the bad field', async () => {
    const dir = scratch()
    const policy = Policy.make(config, 1)
    await _.save(dir, { policy })()
    policy.dispose()
    const { writeFileSync, readFileSync } = await import('node:fs')
    const meta = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))
    meta.model.heads = 'two'
    writeFileSync(join(dir, 'config.json'), JSON.stringify(meta))
    const result = await _.load(dir)()
    expect(result._tag).toBe('Left')
    if (result._tag === 'Left') expect(JSON.stringify(result.left)).toContain('model.heads')
  })

  it('a checkpoint whose critic file is missing, or whose weights are cut short, loads nothing and leaks nothing', async () => {
    const { rmSync, truncateSync, statSync } = await import('node:fs')
    const dir = scratch()
    const policy = Policy.make(config, 1)
    const critic = Critic.make(policy, { shareTrunk: false }, 2)
    await _.save(dir, { policy, critic })()
    critic.dispose()
    policy.dispose()
    await expectNoLeak(async () => {
      rmSync(join(dir, 'critic.safetensors'))
      const noCritic = await _.load(dir)()
      expect(noCritic._tag).toBe('Left')
      if (noCritic._tag === 'Left') expect(JSON.stringify(noCritic.left)).toContain('critic.safetensors')
      const model = join(dir, 'model.safetensors')
      truncateSync(model, statSync(model).size - 100)
      const cut = await _.load(dir)()
      expect(cut._tag).toBe('Left')
      if (cut._tag === 'Left') expect(JSON.stringify(cut.left)).toContain('model.safetensors')
    })
  })
})
