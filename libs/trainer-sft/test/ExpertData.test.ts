import { Trajectory } from '@mtrl/core'
import { Toy } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/ExpertData.js'

const tokenizer = Toy.tokenizer()
const template = Toy.template(tokenizer)
const renderer = { template, tokenizer }

describe('ExpertData', () => {
  it('turns an OpenAI chat conversation into prompt, actions ending with the stop token, and observations', () => {
    const line = JSON.stringify({
      messages: [
        { role: 'system', content: 'choose' },
        { role: 'user', content: 'start' },
        { role: 'assistant', content: 'left' },
        { role: 'user', content: 'middle' },
        { role: 'assistant', content: 'forward' }
      ]
    })
    const result = _.fromChatJsonl(renderer)(`${line}\n\n${line}\n`)
    if (E.isLeft(result)) throw new Error(result.left)
    expect(result.right.length).toBe(2)
    const sample = result.right[0]!
    expect(sample.segments.map((s) => s.kind)).toEqual(['prompt', 'action', 'observation', 'action'])
    expect(Array.from(sample.segments[0]!.tokens)).toEqual(Array.from(template.prompt('choose', 'start')))
    expect(Array.from(sample.segments[1]!.tokens)).toEqual([...tokenizer.encode('left'), tokenizer.special.endOfTurn])
    expect(Array.from(sample.segments[2]!.tokens)).toEqual(Array.from(template.observation('middle')))
    expect(E.isRight(Trajectory.validate(sample))).toBe(true)
  })

  it('names the line and the field of a malformed conversation', () => {
    const bad = _.fromChatJsonl(renderer)('{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"left"}]}\n{"messages":[{"role":"robot","content":"x"}]}')
    expect(bad).toEqual(E.left(expect.stringContaining('line 2')))
    expect(E.isLeft(bad) && bad.left).toContain('messages.0.role')
    expect(_.fromChatJsonl(renderer)('not json')).toEqual(E.left(expect.stringContaining('line 1: invalid JSON')))
  })

  it('rejects conversations out of order or without an assistant turn', () => {
    expect(E.isLeft(_.fromConversation(renderer)({ messages: [{ role: 'assistant', content: 'left' }] }))).toBe(true)
    expect(E.isLeft(_.fromConversation(renderer)({ messages: [{ role: 'user', content: 'start' }] }))).toBe(true)
    expect(
      E.isLeft(_.fromConversation(renderer)({ messages: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }] }))
    ).toBe(true)
  })
})
