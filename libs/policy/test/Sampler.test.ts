import { Rng } from '@mtrl/core'
import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as ModelConfig from '../src/ModelConfig.js'
import * as Policy from '../src/Policy.js'
import * as _ from '../src/Sampler.js'
import * as Scoring from '../src/Scoring.js'
import { randomCanon } from './randomCanon.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const configs: ReadonlyArray<[string, ModelConfig.ModelConfig]> = [
  ['llama-style GQA', ModelConfig.make({ vocab: 40, dModel: 32, layers: 2, heads: 4, kvHeads: 2, ffn: 48, maxLen: 96, qkvBias: true })],
  [
    'gpt-style learned/layernorm/gelu',
    ModelConfig.make({
      vocab: 40,
      dModel: 32,
      layers: 2,
      heads: 2,
      ffn: 64,
      maxLen: 96,
      positional: 'learned',
      norm: 'layernorm',
      activation: 'gelu',
      tiedEmbeddings: true
    })
  ],
  [
    'previous-token embedding',
    ModelConfig.make({ vocab: 40, dModel: 32, layers: 2, heads: 4, ffn: 48, maxLen: 96, tiedEmbeddings: true, prevTokenEmbedding: true })
  ],
  [
    'canon mixing',
    ModelConfig.make({ vocab: 40, dModel: 32, layers: 2, heads: 4, ffn: 48, maxLen: 96, tiedEmbeddings: true, prevTokenEmbedding: true, canonSpan: 3 })
  ]
]

/** Scores each slot's full sequence on its own (no padding) at `temperature`. */
const rescore = (policy: Policy.Policy, sequence: ReadonlyArray<number>, temperature: number): Float32Array =>
  tf.tidy(() => {
    const ids = tf.tensor2d([Array.from(sequence)], [1, sequence.length], 'int32')
    return Scoring.tokenLogprobs(policy)(ids, temperature).logprobs.dataSync() as Float32Array
  })

const randomTokens = (rng: Rng.Rng, n: number, vocab: number): Int32Array => Int32Array.from({ length: n }, () => rng.int(vocab))

describe('Sampler', () => {
  for (const [label, config] of configs) {
    it(`multi-turn KV-cache sampling: Scoring the sampled sequences (full recompute) reproduces the sampler's log-probs (${label})`, async () => {
      const policy = randomCanon(Policy.make(config, 7), 8)
      await expectNoLeak(() => {
        const session = _.make(policy, { slots: 3, maxLen: 96 })
        const rng = Rng.make(1)
        const sequences: number[][] = [[], [], []]
        const sampled: Array<Array<{ at: number; logprob: number }>> = [[], [], []]
        const temperature = 0.8
        const feed = (slots: number[], lengths: number[]): void => {
          const parts = lengths.map((n) => randomTokens(rng, n, config.vocab))
          session.append(slots, parts)
          slots.forEach((s, i) => sequences[s]!.push(...parts[i]!))
        }
        const gen = (slots: number[], maxNewTokens: number): void => {
          const out = session.generate(slots, { maxNewTokens, temperature, stopTokens: [3], rng })
          slots.forEach((s, i) => {
            const g = out[i]!
            expect(g.tokens.length).toBe(g.logprobs.length)
            expect(g.tokens.length).toBeGreaterThan(0)
            if (g.stopped) expect(g.tokens[g.tokens.length - 1]).toBe(3)
            g.tokens.forEach((tok, j) => sampled[s]!.push({ at: sequences[s]!.length + j, logprob: g.logprobs[j]! }))
            sequences[s]!.push(...g.tokens)
            expect(session.length(s)).toBe(sequences[s]!.length)
          })
        }
        feed([0, 1, 2], [5, 9, 1])
        gen([0, 1, 2], 6)
        feed([2, 0], [4, 2])
        gen([2, 0], 5) // a subset, in another order
        feed([1], [3])
        gen([0, 1, 2], 7)
        session.reset(1)
        sequences[1] = []
        sampled[1] = []
        feed([1], [6])
        gen([1, 2], 4)
        for (let s = 0; s < 3; s++) {
          const full = rescore(policy, sequences[s]!, temperature)
          for (const { at, logprob } of sampled[s]!) expect(logprob).toBeCloseTo(full[at]!, 4)
        }
        session.dispose()
      })
      policy.dispose()
    })
  }

  it('keeps per-slot positions exact across resets and uneven turns', async () => {
    const config = configs[0]![1]
    const policy = Policy.make(config, 11)
    await expectNoLeak(() => {
      const session = _.make(policy, { slots: 2, maxLen: 40 })
      const rng = Rng.make(2)
      const seq: number[][] = [[], []]
      const lps: Array<Array<[number, number]>> = [[], []]
      for (let cycle = 0; cycle < 24; cycle++) {
        if (cycle % 3 === 0) {
          session.reset(1)
          seq[1] = []
          lps[1] = []
        }
        const a = randomTokens(rng, 1 + (cycle % 2), config.vocab)
        const b = randomTokens(rng, 4, config.vocab)
        if (session.length(0) + a.length + 3 > 40) {
          session.reset(0)
          seq[0] = []
          lps[0] = []
        }
        session.append([0, 1], [a, b])
        seq[0]!.push(...a)
        seq[1]!.push(...b)
        const out = session.generate([0, 1], { maxNewTokens: 3, temperature: 1, stopTokens: [], rng })
        out.forEach((g, s) => {
          g.logprobs.forEach((lp, j) => lps[s]!.push([seq[s]!.length + j, lp]))
          seq[s]!.push(...g.tokens)
        })
      }
      for (let s = 0; s < 2; s++) {
        const full = rescore(policy, seq[s]!, 1)
        for (const [at, lp] of lps[s]!) expect(lp).toBeCloseTo(full[at]!, 4)
      }
      session.dispose()
    })
    policy.dispose()
  })

  it('is deterministic for a seed and greedy ignores the rng', async () => {
    const policy = Policy.make(configs[0]![1], 3)
    await expectNoLeak(() => {
      const run = (seed: number, temperature: number): number[][] => {
        const session = _.make(policy, { slots: 2, maxLen: 64 })
        session.append([0, 1], [Int32Array.of(1, 2, 3), Int32Array.of(4, 5)])
        const out = session.generate([0, 1], { maxNewTokens: 10, temperature, topK: 20, topP: 0.9, stopTokens: [], rng: Rng.make(seed) })
        session.dispose()
        return out.map((g) => Array.from(g.tokens))
      }
      expect(run(5, 1)).toEqual(run(5, 1))
      expect(run(5, 1)).not.toEqual(run(6, 1))
      expect(run(5, 0)).toEqual(run(6, 0))
    })
    policy.dispose()
  })

  it('with one stream per slot, a slot samples the same tokens and log-probs whichever slots share the call', async () => {
    const policy = Policy.make(configs[3]![1], 4)
    await expectNoLeak(() => {
      const rng = Rng.make(9)
      const prompts = Array.from({ length: 6 }, (_, i) => randomTokens(rng, 3 + 4 * i, 40))
      // slot i always draws from the stream seeded 100 + i
      const run = (slots: ReadonlyArray<number>) => {
        const session = _.make(policy, { slots: 6, maxLen: 96 })
        session.append(
          slots,
          slots.map((s) => prompts[s]!)
        )
        const out = session.generate(slots, { maxNewTokens: 12, temperature: 1, stopTokens: [], rng: slots.map((s) => Rng.make(100 + s)) })
        session.dispose()
        return new Map(slots.map((s, i) => [s, { tokens: Array.from(out[i]!.tokens), logprobs: Array.from(out[i]!.logprobs) }]))
      }
      const all = run([0, 1, 2, 3, 4, 5])
      const parts = [run([5, 0]), run([3]), run([1, 4, 2])]
      for (const part of parts) for (const [slot, sampled] of part) expect(sampled).toEqual(all.get(slot))
      const session = _.make(policy, { slots: 2, maxLen: 32 })
      session.append([0, 1], [prompts[0]!, prompts[1]!])
      expect(() => session.generate([0, 1], { maxNewTokens: 1, temperature: 1, stopTokens: [], rng: [Rng.make(0)] })).toThrow(/1 random streams for 2 slots/)
      session.dispose()
    })
    policy.dispose()
  })

  for (const weights of ['copy', 'shared'] as const)
    it(`holds a constant number of tensors across 100 sampling steps and frees all on dispose (${weights} weights)`, async () => {
      const policy = Policy.make(configs[0]![1], 3)
      await expectNoLeak(() => {
        const session = _.make(policy, { slots: 2, maxLen: 96, weights })
        session.append([0, 1], [Int32Array.of(1, 2), Int32Array.of(3)])
        const rng = Rng.make(0)
        session.generate([0, 1], { maxNewTokens: 1, temperature: 1, stopTokens: [], rng })
        const live = tf.memory().numTensors
        for (let i = 0; i < 100; i++) {
          if (i % 40 === 39) {
            const slot = Math.floor(i / 40) % 2
            session.reset(slot)
            session.append([slot], [Int32Array.of(4, 5)])
          }
          session.generate([0, 1], { maxNewTokens: 1, temperature: 1, stopTokens: [], rng })
          expect(tf.memory().numTensors).toBe(live)
        }
        session.dispose()
      })
      policy.dispose()
    })

  for (const weights of ['copy', 'shared'] as const)
    it(`samples from the current weights after an optimizer step (${weights} weights)`, async () => {
      const policy = Policy.make(configs[0]![1], 8)
      const greedy = (session: _.SamplerSession): number[] => {
        session.reset(0)
        session.append([0], [Int32Array.of(1, 2, 3)])
        const [g] = session.generate([0], { maxNewTokens: 6, temperature: 0, stopTokens: [], rng: Rng.make(0) })
        return Array.from(g!.logprobs)
      }
      const old = _.make(policy, { slots: 1, maxLen: 32, weights })
      const before = greedy(old)
      const ids = tf.tensor2d([[1, 2, 3, 4, 5, 6]], [1, 6], 'int32')
      const adam = tf.train.adam(0.05)
      adam.minimize(() => tf.neg(tf.mean(Scoring.tokenLogprobs(policy)(ids).logprobs)) as tf.Scalar, false, Policy.trainableVariables(policy))
      const fresh = _.make(policy, { slots: 1, maxLen: 32, weights })
      const after = greedy(old)
      expect(after).not.toEqual(before)
      greedy(fresh).forEach((lp, i) => expect(after[i]).toBeCloseTo(lp, 6))
      ;[old, fresh].forEach((s) => s.dispose())
      ids.dispose()
      adam.dispose()
      policy.dispose()
    })

  it('rejects generating past maxLen and empty slots', () => {
    const policy = Policy.make(configs[0]![1], 3)
    const session = _.make(policy, { slots: 2, maxLen: 8 })
    expect(() => session.generate([0], { maxNewTokens: 2, temperature: 1, stopTokens: [], rng: Rng.make(0) })).toThrow(/empty/)
    session.append([0], [Int32Array.of(1, 2, 3, 4, 5, 6)])
    expect(() => session.generate([0], { maxNewTokens: 3, temperature: 1, stopTokens: [], rng: Rng.make(0) })).toThrow(/maxLen/)
    session.dispose()
    policy.dispose()
  })
})
