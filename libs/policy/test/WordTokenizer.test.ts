import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as ChatTemplate from '../src/ChatTemplate.js'
import * as _ from '../src/WordTokenizer.js'

const corpus = ['You are in the kitchen. There is a fridge here.', 'go north', 'open the fridge', 'take the red apple from the fridge']

describe('WordTokenizer', () => {
  it('decode(encode(text)) === text for any text, through the byte fallback', () => {
    const tok = _.build({ maxVocab: 400, minCount: 1 })(corpus)
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (text) => {
        expect(tok.decode(tok.encode(text))).toBe(text)
      })
    )
    expect(tok.decode(tok.encode('héllo wörld ✓\t\n  x'))).toBe('héllo wörld ✓\t\n  x')
  })

  it('builds the same vocabulary from the same corpus, in any order of equal counts', () => {
    const a = _.build({ maxVocab: 300, minCount: 1 })(corpus)
    const b = _.build({ maxVocab: 300, minCount: 1 })([...corpus])
    expect(a.words).toEqual(b.words)
    expect(a.vocabSize).toBeLessThanOrEqual(300)
    expect(a.words[0]).toBe(' the') // most frequent piece first
  })

  it('encodes known words as one token and never parses special-token text', () => {
    const tok = _.build({ maxVocab: 400, minCount: 1 })(corpus)
    expect(tok.encode(' fridge').length).toBe(1)
    expect(Array.from(tok.encode('<|end|>'))).not.toContain(tok.special.endOfTurn)
    expect(tok.decode([tok.special.user])).toBe('<|user|>')
  })

  it('round-trips through its saved form', () => {
    const tok = _.build({ maxVocab: 400, minCount: 1 })(corpus)
    const again = _.fromWords(_.toSaved(tok).words)
    expect(Array.from(again.encode(corpus[0]!))).toEqual(Array.from(tok.encode(corpus[0]!)))
  })

  it('chat template: prompt ends with the assistant header and observations are appendable', () => {
    const tok = _.build({ maxVocab: 400, minCount: 1 })(corpus)
    const template = ChatTemplate.make(tok)
    const prompt = Array.from(template.prompt('You are in the kitchen.', 'open the fridge'))
    expect(prompt[0]).toBe(tok.special.bos)
    expect(prompt[prompt.length - 1]).toBe(tok.special.assistant)
    const obs = Array.from(template.observation('go north'))
    expect(obs[0]).toBe(tok.special.user)
    expect(obs[obs.length - 1]).toBe(tok.special.assistant)
    expect(template.stopTokens).toEqual([tok.special.endOfTurn, tok.special.eos])
    expect(tok.decode(prompt)).toBe('<|bos|><|system|>You are in the kitchen.<|end|><|user|>open the fridge<|end|><|assistant|>')
  })
})
