import { WordTokenizer } from '@mtrl/policy'
import { Ajv } from 'ajv'
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Grammar.js'
import * as ToolCalls from '../src/ToolCalls.js'

const tokenizer = WordTokenizer.build({ maxVocab: 400, minCount: 1 })([
  '{"answer": "yes", "count": 12, "tags": ["a", "bc"]}',
  '<tool_call>\n{"name": "go", "arguments": {"direction": "north"}}\n</tool_call>',
  '[TOOL_CALLS][{"name": "go", "arguments": {}}] <function=go> <parameter=direction> </parameter>',
  'hello there, friend'
])
const stop = tokenizer.special.eos
const grammars = _.make(tokenizer, [stop])
afterAll(() => grammars.dispose())

const schema = {
  type: 'object',
  properties: {
    answer: { enum: ['yes', 'no'] },
    count: { type: 'integer', minimum: 0, maximum: 99 },
    tags: { type: 'array', items: { type: 'string', maxLength: 2 }, maxItems: 2 }
  },
  required: ['answer', 'count', 'tags'],
  additionalProperties: false
}
const go = {
  name: 'go',
  parameters: { type: 'object', properties: { direction: { enum: ['north', 'south'] } }, required: ['direction'], additionalProperties: false }
}
const say = { name: 'say', parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false } }
const take = {
  name: 'take',
  parameters: { type: 'object', properties: { count: { type: 'integer', minimum: 1, maximum: 9 } }, required: ['count'], additionalProperties: false }
}
/** Bytes no valid UTF-8 holds: the grammar never allows their tokens. */
const bytesNeverValid = [0xc0, 0xc1, 0xf5, 0xf8, 0xff]
const validate = (s: object) => new Ajv({ strict: false }).compile(s)

/** Byte tokens 0x80 and up: the walk leaves them out, as a model that writes valid UTF-8 would (xgrammar reads bytes leniently: see `bytesNeverValid`). */
const highByte = (id: number): boolean => id >= 7 + 0x80 && id < 7 + 256

/** A random walk through the grammar: each step draws uniformly among the allowed tokens (high bytes aside), until the stop token. */
const walk = async (compiled: _.Compiled, seed: number, limit = 400): Promise<string | undefined> => {
  const matcher = await compiled.matcher()
  let state = seed >>> 0 || 1
  const ids: number[] = []
  try {
    for (let step = 0; step < limit; step++) {
      const mask = await matcher.mask()
      const allowed = Array.from({ length: tokenizer.vocabSize }, (_x, id) => id).filter((id) => _.allows(mask, id) && !highByte(id))
      expect(allowed.length).toBeGreaterThan(0)
      for (const b of bytesNeverValid) expect(_.allows(mask, 7 + b)).toBe(false)
      state = (state * 48271) % 2147483647
      const id = allowed[state % allowed.length]!
      expect(matcher.accept(id)).toBe(true)
      if (id === stop) {
        return tokenizer.decode(ids)
      }
      ids.push(id)
    }
    return undefined
  } finally {
    matcher.dispose()
  }
}

const compiled = async (spec: _.Spec): Promise<_.Compiled> => {
  const c = await grammars.compile(spec)()
  if (E.isLeft(c)) throw new Error(c.left)
  return c.right
}

describe('Grammar: every reply the mask allows is valid', () => {
  it('JsonSchema (strict): any walk ends in a value of the schema, in compact JSON', async () => {
    const c = await compiled({ _tag: 'JsonSchema', schema, strict: true })
    const valid = validate(schema)
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 30 }), async (seed) => {
        const text = await walk(c, seed)
        expect(text).toBeDefined()
        expect(valid(JSON.parse(text!))).toBe(true)
      }),
      { numRuns: 25 }
    )
  })

  it('JsonObject: any walk that ends is a JSON object', async () => {
    const c = await compiled({ _tag: 'JsonObject' })
    let ended = 0
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const text = await walk(c, seed, 60)
      if (text === undefined) continue
      ended++
      const value: unknown = JSON.parse(text)
      expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true)
    }
    expect(ended).toBeGreaterThan(0)
  })

  for (const syntax of ['hermes', 'qwen-xml', 'glm-xml', 'mistral', 'llama3-json'] as const)
    it(`ToolCalls ${syntax}: any walk is only calls of the given functions, arguments valid, read back by the format's parser`, async () => {
      const c = await compiled({ _tag: 'ToolCalls', syntax, functions: [go, take], parallel: false })
      const byName = { go: validate(go.parameters), take: validate(take.parameters) }
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 30 }), async (seed) => {
          const text = await walk(c, seed)
          expect(text).toBeDefined()
          const parsed = ToolCalls.parse(syntax, [{ function: go }, { function: take }])(text!)
          expect(parsed.content).toBe('')
          expect(parsed.calls.length).toBeGreaterThan(0)
          for (const call of parsed.calls) expect(byName[call.name as 'go' | 'take'](call.arguments)).toBe(true)
        }),
        { numRuns: 10 }
      )
    })

  it('parallel calls: a walk may write several; a named function without parallel calls: exactly one call of it', async () => {
    const parallel = await compiled({ _tag: 'ToolCalls', syntax: 'hermes', functions: [go, take], parallel: true })
    const counts = await Promise.all(
      [1, 2, 3, 4, 5, 6, 7, 8].map(async (seed) => ToolCalls.parse('hermes')((await walk(parallel, seed, 2000)) ?? '').calls.length)
    )
    expect(Math.max(...counts)).toBeGreaterThan(1)
    const c = await compiled({ _tag: 'ToolCalls', syntax: 'hermes', functions: [take], parallel: false })
    for (const seed of [11, 12, 13]) expect(ToolCalls.parse('hermes')((await walk(c, seed))!).calls.map((x) => x.name)).toEqual(['take'])
  })

  it('glm-xml writes string values as text (an enum one of its values), read back as strings', async () => {
    const c = await compiled({ _tag: 'ToolCalls', syntax: 'glm-xml', functions: [go, say], parallel: false })
    for (const seed of [21, 22, 23, 24, 25, 26]) {
      const text = (await walk(c, seed, 200))!
      const parsed = ToolCalls.parse('glm-xml', [{ function: go }, { function: say }])(text)
      expect(parsed.calls).toHaveLength(1)
      const call = parsed.calls[0]!
      if (call.name === 'go') expect(text).toMatch(/<arg_value>(north|south)<\/arg_value>/)
      else expect(typeof call.arguments['text']).toBe('string')
    }
  })

  it('refuses what it cannot compile, with the reason', async () => {
    const bad = await grammars.compile({ _tag: 'JsonSchema', schema: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, strict: false })()
    expect(E.isLeft(bad) && bad.left).toMatch(/cannot be compiled/)
  })
})
