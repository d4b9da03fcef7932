/**
 * The cross-backend test: the same model and batch give the same loss and gradients on `cpu`
 * (reference kernels, native gather gradient), on `wasm` (the embedded backend, which runs the
 * hand-written embedding gradient and the pairwise attention) and on `tensorflow` (the native
 * backend `npm ci` builds, which `auto` picks here: oneDNN kernels), and the sampler picks the
 * same greedy tokens with the same log-probs.
 */
import { Rng } from '@mtrl/core'
import { Services, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { describe, expect, it } from 'vitest'
import * as Critic from '../src/Critic.js'
import * as ModelConfig from '../src/ModelConfig.js'
import * as Policy from '../src/Policy.js'
import * as Sampler from '../src/Sampler.js'
import * as Scoring from '../src/Scoring.js'
import { randomCanon } from './randomCanon.js'

interface Run {
  readonly loss: number
  readonly grads: Record<string, Float32Array>
  readonly greedy: number[][]
  readonly greedyLogprobs: number[][]
}

const run = (config: ModelConfig.ModelConfig, weights?: 'copy' | 'shared'): Run => {
  const policy = randomCanon(Policy.make(config, 4), 6)
  const critic = Critic.make(policy, { shareTrunk: true }, 5)
  const ids = tf.tensor2d(
    [
      [1, 5, 9, 2, 7, 3, 0, 0],
      [4, 4, 8, 1, 6, 2, 9, 11]
    ],
    [2, 8],
    'int32'
  )
  const mask = tf.tensor2d([
    [0, 1, 1, 1, 1, 1, 0, 0],
    [0, 1, 1, 1, 1, 1, 1, 1]
  ])
  const vars = [...Policy.trainableVariables(policy), ...Critic.trainableVariables(critic)]
  const { value, grads } = tf.variableGrads(
    () =>
      tf.tidy(() => {
        const { logprobs, entropy } = Scoring.tokenLogprobs(policy)(ids, 0.9)
        const values = Critic.values(critic)(ids)
        const pg = tf.neg(tf.sum(tf.mul(tf.add(logprobs, tf.mul(entropy, 0.01)), mask)))
        // the training path (no entropy: its own log-softmax gradient) at another temperature
        const sft = tf.neg(tf.sum(tf.mul(Scoring.tokenLogprobs(policy, { entropy: false })(ids).logprobs, mask)))
        return tf.addN([pg, tf.mul(sft, 0.5), tf.sum(tf.mul(tf.square(values), mask))]) as tf.Scalar
      }),
    vars
  )
  const out: Record<string, Float32Array> = {}
  for (const [name, g] of Object.entries(grads)) out[name.slice(name.indexOf('/') + 1)] = new Float32Array(g.dataSync())
  const loss = value.dataSync()[0]!
  value.dispose()
  Object.values(grads).forEach((g) => g.dispose())
  const session = Sampler.make(policy, { slots: 2, maxLen: 32, ...(weights === undefined ? {} : { weights }) })
  session.append([0, 1], [Int32Array.of(1, 2, 3), Int32Array.of(7)])
  const gens = session.generate([0, 1], { maxNewTokens: 6, temperature: 0, stopTokens: [], rng: Rng.make(0) })
  session.dispose()
  ;[ids, mask].forEach((t) => t.dispose())
  critic.dispose()
  policy.dispose()
  return { loss, grads: out, greedy: gens.map((g) => Array.from(g.tokens)), greedyLogprobs: gens.map((g) => Array.from(g.logprobs)) }
}

const configs: ReadonlyArray<[string, ModelConfig.ModelConfig]> = [
  ['llama-style', ModelConfig.make({ vocab: 24, dModel: 32, layers: 2, heads: 4, kvHeads: 2, ffn: 48, maxLen: 32, qkvBias: true })],
  [
    'recipe-style',
    ModelConfig.make({ vocab: 24, dModel: 32, layers: 2, heads: 4, ffn: 48, maxLen: 32, tiedEmbeddings: true, prevTokenEmbedding: true, canonSpan: 3 })
  ],
  [
    'gpt-style',
    ModelConfig.make({
      vocab: 24,
      dModel: 32,
      layers: 2,
      heads: 2,
      maxLen: 32,
      positional: 'learned',
      norm: 'layernorm',
      activation: 'gelu',
      tiedEmbeddings: true
    })
  ]
]

const compare = (cpu: Run, other: Run): void => {
  expect(Math.abs(other.loss - cpu.loss)).toBeLessThan(1e-4 * Math.max(1, Math.abs(cpu.loss)))
  expect(Object.keys(other.grads).sort()).toEqual(Object.keys(cpu.grads).sort())
  for (const [name, g] of Object.entries(cpu.grads)) {
    const w = other.grads[name]!
    const scale = Math.max(1e-3, ...Array.from(g, Math.abs))
    const worst = Math.max(...Array.from(g, (v, i) => Math.abs(v - w[i]!)))
    expect(worst / scale, name).toBeLessThan(1e-4)
  }
  expect(other.greedy).toEqual(cpu.greedy)
  other.greedyLogprobs.forEach((row, r) => row.forEach((lp, i) => expect(lp).toBeCloseTo(cpu.greedyLogprobs[r]![i]!, 4)))
}

const against = async (backend: 'wasm' | 'tensorflow', config: ModelConfig.ModelConfig, weights?: 'copy' | 'shared'): Promise<void> => {
  await TestBackend.use('cpu')
  const cpu = run(config)
  await TestBackend.use(backend)
  const before = tf.memory().numTensors
  const other = run(config, weights)
  expect(tf.memory().numTensors).toBe(before)
  await TestBackend.use('cpu')
  compare(cpu, other)
}

describe('cpu vs wasm parity', () => {
  for (const [label, config] of configs) it(`loss, gradients and greedy sampling agree (${label})`, () => against('wasm', config))
})

describe('cpu vs tensorflow parity', () => {
  for (const [label, config] of configs)
    it.runIf(Services.available('tensorflow'))(`loss, gradients and greedy sampling agree (${label}) ${Services.tag('tensorflow')}`, () =>
      against('tensorflow', config)
    )
  // the layout real sizes decode with on tensorflow (the trunk's own weights), beside cpu's folded copy
  for (const [label, config] of configs.slice(0, 2))
    it.runIf(Services.available('tensorflow'))(`greedy sampling from the shared weights agrees (${label}) ${Services.tag('tensorflow')}`, () =>
      against('tensorflow', config, 'shared')
    )
})
