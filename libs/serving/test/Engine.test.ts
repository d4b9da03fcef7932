import { Rng } from '@mtrl/core'
import { ModelConfig, Policy, Sampler } from '@mtrl/policy'
import { TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Engine.js'
import type * as Grammar from '../src/Grammar.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const plain = ModelConfig.make({ vocab: 50, dModel: 32, layers: 2, heads: 4, kvHeads: 2, ffn: 48, maxLen: 256, prevTokenEmbedding: true })
const canon = ModelConfig.make({ vocab: 50, dModel: 32, layers: 2, heads: 4, ffn: 48, maxLen: 256, tiedEmbeddings: true, canonSpan: 3 })
const STOP = 3

const tokens = (seed: number, n: number): Int32Array => {
  const rng = Rng.make(seed)
  return Int32Array.from({ length: n }, () => 4 + rng.int(46))
}

const greedy = (prompt: Int32Array, maxTokens = 12, extra: Partial<_.Sequence> = {}): _.Sequence => ({
  prompt,
  maxTokens,
  sampling: { temperature: 0 },
  stopTokens: [STOP],
  rng: Rng.make(0),
  ...extra
})

/** What the established one-call sampler generates for `prompt`. */
const sampled = (policy: Policy.Policy, prompt: Int32Array, maxTokens: number, temperature = 0, seed = 0): number[] => {
  const session = Sampler.make(policy, { slots: 1, maxLen: 256 })
  session.append([0], [prompt])
  const [g] = session.generate([0], { maxNewTokens: maxTokens, temperature, stopTokens: [STOP], rng: Rng.make(seed) })
  session.dispose()
  return Array.from(g!.tokens)
}

/**
 * A grammar over token ids: at step i only the ids `allowed(i)` may follow (and the stop token
 * once `length` tokens are out); it records what it was told, so a test sees the engine's calls.
 */
const idGrammar = (allowed: (step: number) => ReadonlyArray<number>, length: number): Grammar.Matcher & { readonly accepted: number[] } => {
  const accepted: number[] = []
  const maskOf = (ids: ReadonlyArray<number>): Int32Array => {
    const m = new Int32Array(2)
    for (const id of ids) m[id >> 5] = m[id >> 5]! | (1 << (id & 31))
    return m
  }
  return {
    accepted,
    mask: async () => maskOf(accepted.length >= length ? [STOP] : allowed(accepted.length)),
    accept: (token) => {
      const ok = (accepted.length >= length ? [STOP] : allowed(accepted.length)).includes(token)
      if (ok) accepted.push(token)
      return ok
    },
    dispose: () => undefined
  }
}

/** Log-probs of `ids` at the positions after `from`, from the model's logits restricted to `allowed(i)` and tempered by `temperature`. */
const maskedLogprobs = (
  policy: Policy.Policy,
  ids: Int32Array,
  from: number,
  allowed: (step: number) => ReadonlyArray<number>,
  temperature: number
): number[] => {
  const logits = tf.tidy(() => Policy.logits(policy)(tf.tensor2d(ids, [1, ids.length], 'int32')).arraySync()[0]!)
  return Array.from(ids.subarray(from), (id, i) => {
    const row = logits[from + i - 1]!
    const set = allowed(i)
    const lse = Math.log(set.reduce((s, v) => s + Math.exp(row[v]! / temperature), 0))
    return row[id]! / temperature - lse
  })
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

describe('Engine', () => {
  it('decodes a sequence as the Sampler does (greedy and seeded), tokens and sampler log-probs, with no tensor left behind', async () => {
    const policy = Policy.make(plain, 1)
    const before = tf.memory().numTensors
    const engine = _.make(policy, { maxLen: 256, slots: 4 })
    const prompt = tokens(1, 20)
    const g = await engine.submit(greedy(prompt, 16))
    expect(Array.from(g.tokens)).toEqual(sampled(policy, prompt, 16))
    const s = await engine.submit({ ...greedy(prompt, 16), sampling: { temperature: 0.9 }, rng: Rng.make(7) })
    expect(Array.from(s.tokens)).toEqual(sampled(policy, prompt, 16, 0.9, 7))
    expect(s.logprobs.every((l) => l <= 0 && Number.isFinite(l))).toBe(true)
    await engine.close()
    expect(tf.memory().numTensors).toBe(before)
    policy.dispose()
  })

  it('greedy and seeded outputs do not depend on what else is in the batch or when it arrives', async () => {
    const policy = Policy.make(plain, 2)
    const alone = _.make(policy, { maxLen: 256, slots: 8 })
    const target = greedy(tokens(2, 17), 20)
    const seeded = (): _.Sequence => ({ ...greedy(tokens(9, 11), 20), sampling: { temperature: 1, topP: 0.9 }, rng: Rng.make(42) })
    const a = await alone.submit(target)
    const b = await alone.submit(seeded())
    await alone.close()
    const busy = _.make(policy, { maxLen: 256, slots: 8, prefillChunk: 8 })
    const others = [1, 2, 3, 4, 5].map((i) => busy.submit({ ...greedy(tokens(100 + i, 5 + 7 * i), 30), sampling: { temperature: 1 }, rng: Rng.make(i) }))
    await sleep(5) // the others are decoding when these join
    const [a2, b2] = await Promise.all([busy.submit(target), busy.submit(seeded())])
    await Promise.all(others)
    expect(Array.from(a2!.tokens)).toEqual(Array.from(a.tokens))
    expect(Array.from(b2!.tokens)).toEqual(Array.from(b.tokens))
    expect(Array.from(b2!.logprobs)).toEqual(Array.from(b.logprobs))
    await busy.close()
    policy.dispose()
  })

  for (const [label, config] of [
    ['', plain],
    [' (canon mixing)', canon]
  ] as const)
    it(`the next turn of a conversation re-encodes only its new tokens, and decodes as a fresh engine would${label}`, async () => {
      const policy = Policy.make(config, 3)
      const engine = _.make(policy, { maxLen: 256, slots: 2 })
      const first = tokens(3, 25)
      const one = await engine.submit(greedy(first, 10))
      // other conversations pass through, the conversation's slot is kept (least recently used goes first)
      await engine.submit(greedy(tokens(4, 9), 5))
      const second = Int32Array.from([...first, ...one.tokens, ...tokens(5, 6)])
      const two = await engine.submit(greedy(second, 10))
      expect(two.cachedTokens).toBe(first.length + one.tokens.length)
      const fresh = _.make(policy, { maxLen: 256, slots: 2 })
      const want = await fresh.submit(greedy(second, 10))
      expect(want.cachedTokens).toBe(0)
      expect(Array.from(two.tokens)).toEqual(Array.from(want.tokens))
      expect(engine.stats().cachedTokens).toBe(two.cachedTokens)
      await Promise.all([engine.close(), fresh.close()])
      policy.dispose()
    })

  it('after an optimizer step nothing cached under the old weights is reused: the next turn decodes as a fresh engine would', async () => {
    const policy = Policy.make(plain, 8)
    const engine = _.make(policy, { maxLen: 256, slots: 2 })
    const first = tokens(12, 25)
    const one = await engine.submit(greedy(first, 10))
    // an optimizer step: a variable is assigned
    const [name, variable] = Object.entries(policy.variables).find(([n]) => n.includes('embed'))!
    tf.tidy(() => variable.assign(tf.add(variable, tf.randomNormal(variable.shape, 0, 0.5, 'float32', 3))))
    expect(name).toContain('embed')
    const second = Int32Array.from([...first, ...one.tokens, ...tokens(13, 6)])
    const two = await engine.submit(greedy(second, 10))
    expect(two.cachedTokens).toBe(0)
    const fresh = _.make(policy, { maxLen: 256, slots: 2 })
    expect(Array.from(two.tokens)).toEqual(Array.from((await fresh.submit(greedy(second, 10))).tokens))
    // and from then on the cache works again, under the new weights
    const three = await engine.submit(greedy(Int32Array.from([...second, ...two.tokens, 5]), 4))
    expect(three.cachedTokens).toBe(second.length + two.tokens.length)
    await Promise.all([engine.close(), fresh.close()])
    policy.dispose()
  })

  it('sequences with a shared prompt arriving together prefill it once (the others copy it) and decode as if alone', async () => {
    const policy = Policy.make(plain, 4)
    const engine = _.make(policy, { maxLen: 256, slots: 4 })
    const prompt = tokens(6, 60)
    const seeds = [1, 2, 3, 4]
    const runs = await Promise.all(seeds.map((s) => engine.submit({ ...greedy(prompt, 8), sampling: { temperature: 1 }, rng: Rng.make(s) })))
    expect(runs.filter((r) => r.cachedTokens === prompt.length - 1)).toHaveLength(3)
    runs.forEach((r, i) => expect(Array.from(r.tokens)).toEqual(sampled(policy, prompt, 8, 1, seeds[i])))
    await engine.close()
    policy.dispose()
  })

  it('queues more sequences than slots, ends on maxTokens (length), a stop token, onToken (stop) or an abort', async () => {
    const policy = Policy.make(plain, 5)
    const engine = _.make(policy, { maxLen: 256, slots: 2 })
    const many = await Promise.all([0, 1, 2, 3, 4].map((i) => engine.submit(greedy(tokens(20 + i, 8), 6, { stopTokens: [] }))))
    many.forEach((c) => {
      expect(c.finish).toBe('length')
      expect(c.tokens).toHaveLength(6)
    })
    const free = await engine.submit(greedy(tokens(30, 8), 12, { stopTokens: [] }))
    const stopAt = free.tokens[4]!
    const stopped = await engine.submit(greedy(tokens(30, 8), 12, { stopTokens: [stopAt] }))
    expect(stopped.finish).toBe('stop')
    expect(stopped.tokens[stopped.tokens.length - 1]).toBe(stopAt)
    expect(stopped.tokens.length).toBeLessThanOrEqual(5)
    let seen = 0
    const byCallback = await engine.submit(greedy(tokens(30, 8), 12, { stopTokens: [], onToken: () => ++seen === 3 }))
    expect(byCallback.finish).toBe('stop')
    expect(byCallback.tokens).toHaveLength(3)
    const controller = new AbortController()
    const pending = engine.submit(greedy(tokens(31, 8), 200, { stopTokens: [], onToken: () => (controller.abort(), false), signal: controller.signal }))
    expect((await pending).finish).toBe('aborted')
    await expect(engine.submit(greedy(new Int32Array(0)))).rejects.toThrow(/prompt/)
    await engine.close()
    policy.dispose()
  })

  it('a grammar masks its own sequence: every token allowed, log-probs of the masked distribution, the others in the batch unaffected, the masks returned', async () => {
    const policy = Policy.make(plain, 5)
    const before = tf.memory().numTensors
    const engine = _.make(policy, { maxLen: 256, slots: 4 })
    const prompt = tokens(31, 12)
    const odd = (step: number): ReadonlyArray<number> => Array.from({ length: 5 }, (_x, k) => 5 + 2 * k + 10 * (step % 3))
    const free = () => ({ ...greedy(tokens(40, 9), 10), sampling: { temperature: 1 }, rng: Rng.make(3) })
    const alone = await engine.submit(free())
    const grammar = idGrammar(odd, 6)
    const [constrained, beside] = await Promise.all([
      engine.submit({ ...greedy(prompt, 20), sampling: { temperature: 0.7 }, rng: Rng.make(9), grammar, topLogprobs: 3 }),
      engine.submit(free())
    ])
    await engine.close()
    expect(Array.from(beside.tokens)).toEqual(Array.from(alone.tokens))
    expect(Array.from(constrained.tokens.subarray(0, 6)).every((t, i) => odd(i).includes(t))).toBe(true)
    expect(constrained.tokens[6]).toBe(STOP)
    expect(grammar.accepted).toEqual(Array.from(constrained.tokens))
    const want = maskedLogprobs(policy, Int32Array.from([...prompt, ...constrained.tokens.subarray(0, 6)]), prompt.length, odd, 0.7)
    Array.from(constrained.logprobs.subarray(0, 6)).forEach((lp, i) => expect(lp).toBeCloseTo(want[i]!, 4))
    expect(constrained.logprobs[6]).toBe(0) // the only allowed token
    expect(constrained.top.every((candidates, i) => candidates.every((c) => (i < 6 ? odd(i) : [STOP]).includes(c.token)))).toBe(true)
    expect(constrained.masks).toHaveLength(7)
    expect(alone.masks).toBeUndefined()
    expect(tf.memory().numTensors).toBe(before)
    policy.dispose()
  })
})
