import { expectNoLeak, TestBackend } from '@mtrl/testing'
import * as tf from '@tensorflow/tfjs'
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import * as HfTokenizer from '../src/HfTokenizer.js'
import * as _ from '../src/HuggingFace.js'
import * as Logprobs from '../src/Logprobs.js'
import * as Policy from '../src/Policy.js'

/** fixtures/hf at the repository root (tiny Hugging Face checkpoints, see its README). */
const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../fixtures/hf')

interface Reference {
  readonly cases: ReadonlyArray<{ readonly text: string; readonly ids: number[]; readonly next_token_logprobs: number[]; readonly last_logits: number[] }>
  readonly greedy_from_case0: number[]
}

beforeAll(async () => {
  await TestBackend.use('cpu')
})

describe('HuggingFace', () => {
  for (const name of ['tiny-llama', 'tiny-qwen2']) {
    const dir = join(fixtures, name)
    const reference = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as Reference

    it(`${name}: reproduces the reference logits, log-probs and greedy ids`, async () => {
      const loaded = await _.load(dir)()
      if (loaded._tag === 'Left') throw new Error(JSON.stringify(loaded.left))
      const policy = loaded.right
      expect(policy.config.kvHeads).toBe(2)
      expect(policy.config.tiedEmbeddings).toBe(name === 'tiny-qwen2')
      expect(policy.config.qkvBias).toBe(name === 'tiny-qwen2')
      await expectNoLeak(() => {
        for (const c of reference.cases) {
          const result = Logprobs.compute(policy, c.text)
          expect(result.ids).toEqual(c.ids)
          result.nextTokenLogprobs.forEach((lp, i) => expect(Math.abs(lp - c.next_token_logprobs[i]!)).toBeLessThan(1e-4))
          const last = tf.tidy(() => {
            const logits = Policy.logits(policy)(tf.tensor2d([c.ids], [1, c.ids.length], 'int32'))
            return Array.from(tf.slice(logits, [0, c.ids.length - 1, 0], [1, 1, -1]).dataSync())
          })
          expect(last.length).toBe(c.last_logits.length)
          const worst = Math.max(...last.map((v, i) => Math.abs(v - c.last_logits[i]!)))
          expect(worst).toBeLessThan(1e-4)
        }
        expect(Logprobs.compute(policy, reference.cases[0]!.text).greedy).toEqual(reference.greedy_from_case0)
      })
      policy.dispose()
    })
  }

  it("the tokenizer decodes ids and an empty list (a reply that is only its stop token) to ''", () => {
    const dir = join(fixtures, 'tiny-qwen2')
    const tokenizer = HfTokenizer.fromJson(
      JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')),
      JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8'))
    )
    expect(tokenizer.decode([])).toBe('')
    expect(tokenizer.decode(tokenizer.encode('go north'))).toBe('go north')
  })

  it('Logprobs.run loads a folder and frees the model', async () => {
    const before = tf.memory().numTensors
    const result = await Logprobs.run({ model: join(fixtures, 'tiny-qwen2'), text: 'go north' })()
    expect(result._tag).toBe('Right')
    if (result._tag === 'Right') expect(result.right.greedy.length).toBe(12)
    expect(tf.memory().numTensors).toBe(before)
  })

  it('rejects unsupported architectures and missing folders with a reason', async () => {
    expect(_.configOf({ architectures: ['GPT2LMHeadModel'] })._tag).toBe('Left')
    const missing = await _.load(join(fixtures, 'no-such-model'))()
    expect(missing._tag).toBe('Left')
    if (missing._tag === 'Left') expect(missing.left._tag).toBe('FileError')
  })

  it('maxLen sets the context instead of max_position_embeddings, with the same numbers on the positions both have', async () => {
    const dir = join(fixtures, 'tiny-qwen2')
    const reference = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8')) as Reference
    const loaded = await _.load(dir, { maxLen: 512 })()
    if (loaded._tag === 'Left') throw new Error(JSON.stringify(loaded.left))
    expect(loaded.right.config.maxLen).toBe(512)
    const c = reference.cases[0]!
    Logprobs.compute(loaded.right, c.text).nextTokenLogprobs.forEach((lp, i) => expect(Math.abs(lp - c.next_token_logprobs[i]!)).toBeLessThan(1e-4))
    loaded.right.dispose()
    const bad = await _.load(dir, { maxLen: 0 })()
    expect(bad._tag === 'Left' && bad.left._tag).toBe('InvalidConfig')
  })
})
