import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Families.js'
import * as HuggingFace from '../src/HuggingFace.js'
import * as Logprobs from '../src/Logprobs.js'
import * as Decoder from '../src/Decoder.js'
import * as Policy from '../src/Policy.js'
import * as Lora from '../src/Lora.js'

/** fixtures/hf: tiny random checkpoints and their transformers references (tools/fixtures/hf-families.py). */
const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/hf')

interface Reference {
  readonly architecture: string
  readonly cases: ReadonlyArray<{ readonly text: string; readonly ids: number[]; readonly next_token_logprobs: number[]; readonly last_logits: number[] }>
  readonly greedy_from_case0: number[]
}

const families = [
  'tiny-qwen3',
  'tiny-llama3',
  'tiny-llama-linear',
  'tiny-llama-yarn',
  'tiny-mistral',
  'tiny-gemma2',
  'tiny-gemma3',
  'tiny-phi3',
  'tiny-smollm3',
  'tiny-olmo2'
]

const load = async (name: string, options: HuggingFace.LoadOptions = {}): Promise<Policy.Policy> => {
  const loaded = await HuggingFace.load(join(fixtures, name), options)()
  if (loaded._tag === 'Left') throw new Error(JSON.stringify(loaded.left))
  return loaded.right
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  expect(a.length).toBe(b.length)
  let worst = 0
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!))
  return worst
}

beforeAll(async () => {
  await TestBackend.use('cpu')
})

describe('Families', () => {
  for (const name of families) {
    const reference = JSON.parse(readFileSync(join(fixtures, name, 'reference.json'), 'utf8')) as Reference

    it(`${name} (${reference.architecture}): the ids, log-probs within 2e-5, last logits and greedy ids of transformers`, async () => {
      const policy = await load(name)
      await expectNoLeak(() => {
        for (const c of reference.cases) {
          const result = Logprobs.compute(policy, c.text)
          expect(result.ids).toEqual(c.ids)
          expect(maxDiff(result.nextTokenLogprobs, c.next_token_logprobs)).toBeLessThan(2e-5)
          const last = tf.tidy(() => {
            const logits = Policy.logits(policy)(tf.tensor2d([c.ids], [1, c.ids.length], 'int32'))
            return tf.slice(logits, [0, c.ids.length - 1, 0], [1, 1, -1]).dataSync()
          })
          expect(maxDiff(last, c.last_logits)).toBeLessThan(2e-5)
        }
        expect(Logprobs.compute(policy, reference.cases[0]!.text).greedy).toEqual(reference.greedy_from_case0)
      })
      policy.dispose()
    })
  }

  it('KV-cached decoding, token by token, equals the full forward pass, past the sliding window (6) and with LoRA, in both weight layouts', async () => {
    for (const name of [
      'tiny-mistral',
      'tiny-gemma2',
      'tiny-gemma3',
      'tiny-phi3',
      'tiny-smollm3',
      'tiny-olmo2',
      'tiny-qwen3',
      'tiny-llama-yarn',
      'tiny-qwen2'
    ]) {
      const policy = await load(name, { lora: { rank: 2, alpha: 4, targets: ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj'] } })
      // a trained adapter: B non-zero
      tf.tidy(() => Object.entries(policy.variables).forEach(([n, v]) => n.includes('lora_B') && v.assign(tf.randomNormal(v.shape, 0, 0.3, 'float32', 1))))
      const ids = Array.from({ length: 20 }, (_, i) => (i * 37 + 11) % policy.config.vocab)
      const full = tf.tidy(() => Policy.logits(policy)(tf.tensor2d([ids], [1, ids.length], 'int32')).dataSync())
      for (const weights of ['copy', 'shared'] as const)
        await expectNoLeak(() => {
          const decoder = Decoder.make(policy, { slots: 2, maxLen: 32, weights })
          const V = policy.config.vocab
          decoder.feed([{ slot: 1, tokens: ids.slice(0, 3) }])
          for (let t = 0; t < ids.length; t++) {
            const feeds =
              t < 3
                ? [{ slot: 0, tokens: [ids[t]!] }]
                : [
                    { slot: 0, tokens: [ids[t]!] },
                    { slot: 1, tokens: [ids[t]!] }
                  ]
            const out = decoder.feed(feeds)
            out.forEach((logits) => expect(maxDiff(logits, full.subarray(t * V, (t + 1) * V)), `${name} (${weights}) at ${t}`).toBeLessThan(2e-4))
          }
          decoder.dispose()
        })
      policy.dispose()
    }
  })

  it('LoRA trains on every family: a step on the adapters lowers the loss and leaves the base weights', async () => {
    for (const name of [...families, 'tiny-llama', 'tiny-qwen2']) {
      const policy = await load(name, { lora: Lora.defaultOptions })
      const ids = tf.tensor2d([[5, 9, 17, 33, 65, 129, 7, 3]], [1, 8], 'int32')
      const lossOf = (): tf.Scalar =>
        tf.tidy(() => {
          const logits = Policy.logits(policy)(ids)
          return tf.neg(tf.mean(tf.sum(tf.mul(tf.logSoftmax(logits), tf.oneHot(tf.reshape(ids, [1, 8]), policy.config.vocab)), -1))) as tf.Scalar
        })
      const value = (): number => {
        const loss = lossOf()
        const v = loss.dataSync()[0]!
        loss.dispose()
        return v
      }
      const before = value()
      const trainable = Policy.trainableVariables(policy)
      expect(trainable.length).toBeGreaterThan(0)
      expect(trainable.every((v) => Lora.isAdapter(Policy.variableName(v)))).toBe(true)
      const base = policy.variables['model.layers.0.self_attn.q_proj.weight']!
      const baseBefore = base.dataSync().slice()
      const optimizer = tf.train.adam(0.02)
      optimizer.minimize(lossOf, false, trainable)
      expect(value(), name).toBeLessThan(before)
      expect(base.dataSync()).toEqual(baseBefore)
      optimizer.dispose()
      ids.dispose()
      policy.dispose()
    }
  })

  it('refuses what it cannot read, naming the field', () => {
    const base = { hidden_size: 32, num_attention_heads: 4, num_hidden_layers: 2, vocab_size: 300, intermediate_size: 64 }
    const reason = (json: unknown): string => {
      const read = _.configOf(json)
      return read._tag === 'Left' ? read.left : 'accepted'
    }
    expect(reason({ ...base, model_type: 'gpt2' })).toMatch(/model_type gpt2; supported: llama, qwen2, qwen3/)
    expect(reason({ ...base, model_type: 'llama', rope_parameters: { rope_type: 'dynamic', factor: 2 } })).toMatch(/rope_type dynamic/)
    expect(reason({ ...base, model_type: 'phi3', rope_parameters: { rope_type: 'longrope' } })).toMatch(/LongRoPE/)
    expect(reason({ ...base, model_type: 'llama', hidden_act: 'relu' })).toMatch(/hidden_act relu/)
    expect(reason({ ...base, model_type: 'llama', hidden_size: '32' })).toMatch(/hidden_size must be a number/)
    expect(reason({ ...base, model_type: 'gemma2', layer_types: ['sliding_attention', 'full_attention'], sliding_window: null })).toMatch(/sliding_window/)
    expect(reason({ ...base, model_type: 'qwen2', use_sliding_window: true })).toMatch(/layer_types/)
    expect(reason({ ...base, model_type: 'llama' })).toBe('accepted')
    // transformers 4.x configs of published models
    const qwen = _.configOf({ ...base, model_type: 'qwen2', rope_scaling: null, rope_theta: 1e6, sliding_window: 131072, use_sliding_window: false })
    expect(qwen._tag === 'Right' && [qwen.right.slidingWindow, qwen.right.ropeTheta, qwen.right.qkvBias]).toEqual([undefined, 1e6, true])
    const mistral = _.configOf({ ...base, model_type: 'mistral', sliding_window: null })
    expect(mistral._tag === 'Right' && mistral.right.slidingWindow).toBe(undefined)
    const gemma3 = _.configOf({
      ...base,
      num_hidden_layers: 6,
      model_type: 'gemma3_text',
      rope_scaling: { rope_type: 'linear', factor: 8 },
      rope_theta: 1e6,
      rope_local_base_freq: 1e4,
      sliding_window: 512,
      sliding_window_pattern: 6
    })
    expect(gemma3._tag === 'Right' && [gemma3.right.rope, gemma3.right.localRopeTheta, gemma3.right.slidingLayers]).toEqual([
      { type: 'linear', factor: 8 },
      1e4,
      [true, true, true, true, true, false]
    ])
  })

  it('reads a sharded folder (model.safetensors.index.json) and chat_template.jinja', async () => {
    const olmo = await load('tiny-olmo2')
    expect(olmo.config.blockNorms).toBe('post')
    olmo.dispose()
    const qwen3 = await load('tiny-qwen3')
    const template = readFileSync(join(fixtures, 'tiny-qwen3', 'chat_template.jinja'), 'utf8')
    expect((qwen3.tokenizer as { config?: { chat_template?: string } }).config?.chat_template).toBe(template)
    qwen3.dispose()
  })
})
