/**
 * The cost of constrained decoding in the engine: N concurrent sequences (1 and 32) decoded
 * with and without a grammar (a JSON Schema of an object with a string, an integer and an
 * array of enums), the same prompts and seeds, temperature 1, 64 new tokens at most. Grammars are
 * compiled before the clock starts (a schema sent again is cached); each sequence's matcher is
 * made inside it. The model has the default recipe's shape (2 layers, d 128, 8 heads) with random
 * weights and a word vocabulary of VOCAB tokens (the mask's width); the default (wasm) backend.
 *
 * Prints generated tokens/s of both (interleaved runs, the best of three each) and their ratio
 * (the goal: within 10%).
 *
 *   npm run bench:constrained -w @mtrl/serving            # VOCAB=32000 by default
 */
import { Backend } from '@mtrl/backend'
import { Rng } from '@mtrl/core'
import { ModelConfig, Policy, WordTokenizer } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import * as Engine from '../src/Engine.js'
import * as Grammar from '../src/Grammar.js'

const VOCAB = Number(process.env['VOCAB'] ?? 32_000)
const NEW = 64
const schema = {
  type: 'object',
  properties: { name: { type: 'string' }, count: { type: 'integer' }, tags: { type: 'array', items: { enum: ['a', 'b', 'c'] } } },
  required: ['name', 'count', 'tags'],
  additionalProperties: false
}

/** A word tokenizer of about `size` tokens: JSON punctuation plus made-up words. */
const tokenizerOf = (size: number): WordTokenizer.WordTokenizer => {
  const rng = Rng.make(1)
  const letters = 'abcdefghijklmnopqrstuvwxyz'
  const words = Array.from({ length: size }, () => Array.from({ length: 3 + rng.int(6) }, () => letters[rng.int(26)]).join(''))
  return WordTokenizer.build({ maxVocab: size, minCount: 1 })([JSON.stringify({ name: 'x', count: 1, tags: ['a'] }), words.join(' ')])
}

const run = async (engine: Engine.Engine, n: number, grammar: Grammar.Compiled | undefined, stop: number): Promise<{ tokens: number; seconds: number }> => {
  const t0 = performance.now()
  const done = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const matcher = await grammar?.matcher()
      const prompt = Int32Array.from({ length: 16 }, (_x, k) => 300 + ((i * 31 + k * 7) % 1000))
      const c = await engine.submit({
        prompt,
        maxTokens: NEW,
        sampling: { temperature: 1 },
        stopTokens: [stop],
        rng: Rng.make(i),
        ...(matcher === undefined ? {} : { grammar: matcher })
      })
      matcher?.dispose()
      return c.tokens.length
    })
  )
  return { tokens: done.reduce((a, b) => a + b, 0), seconds: (performance.now() - t0) / 1000 }
}

const main = async (): Promise<void> => {
  const backend = await Backend.select('wasm')()
  if (E.isLeft(backend)) throw new Error(JSON.stringify(backend.left))
  const tokenizer = tokenizerOf(VOCAB)
  const config = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 128, layers: 2, heads: 8, ffn: 512, maxLen: 256 })
  const policy = Policy.make(config, 3)
  const grammars = Grammar.make(tokenizer, [tokenizer.special.eos])
  const t0 = performance.now()
  const compiled = await grammars.compile({ _tag: 'JsonSchema', schema, strict: true })()
  if (E.isLeft(compiled)) throw new Error(compiled.left)
  const compileMs = performance.now() - t0
  process.stdout.write(
    `backend ${backend.right.name}; model d ${config.dModel}, ${config.layers} layers, vocab ${config.vocab}; <= ${NEW} new tokens, temperature 1; grammar compiled in ${compileMs.toFixed(0)} ms (first compile: tokenizer info included)\n\n`
  )
  process.stdout.write('| sequences | unconstrained tok/s | constrained tok/s | ratio |\n|---|---|---|---|\n')
  for (const n of [1, 32]) {
    const engine = Engine.make(policy, { maxLen: 256, slots: 32 })
    await run(engine, n, undefined, tokenizer.special.eos) // warm-up
    // interleaved, the best of three each (the machine is shared: the best is the least disturbed)
    let a = 0
    let b = 0
    for (let round = 0; round < 3; round++) {
      const free = await run(engine, n, undefined, tokenizer.special.eos)
      const constrained = await run(engine, n, compiled.right, tokenizer.special.eos)
      a = Math.max(a, free.tokens / free.seconds)
      b = Math.max(b, constrained.tokens / constrained.seconds)
    }
    await engine.close()
    process.stdout.write(`| ${n} | ${a.toFixed(1)} | ${b.toFixed(1)} | ${((100 * b) / a).toFixed(0)}% |\n`)
  }
  grammars.dispose()
  policy.dispose()
}

void main()
