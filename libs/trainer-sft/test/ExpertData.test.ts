import { Trajectory } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import { ChatTemplate, WordTokenizer } from '@mtrl/policy'
import * as O from 'fp-ts/lib/Option.js'
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

  it("replays a TextWorld expert planner's plan in the rollout token layout, and wins", async () => {
    const env = TextWorld.make(Settings.custom(2, 3, 4))
    const start = await env.reset(5)()
    if (E.isLeft(start)) throw new Error(start.left._tag)
    const plan = TextWorld.expertPlan(env)
    if (O.isNone(plan)) throw new Error('no plan')
    const words = WordTokenizer.build({ maxVocab: 600, minCount: 1 })([start.right.goal, start.right.text, ...plan.value])
    const renderer = { template: ChatTemplate.make(words), tokenizer: words }
    const replayed = await _.replay({ systemPrompt: 'You play a text game.', actionFormat: 'tagged' }, renderer)(env, 5, plan.value)()
    if (E.isLeft(replayed)) throw new Error(replayed.left._tag)
    const demo = replayed.right
    expect(demo.won).toBe(true)
    expect(demo.turns.length).toBe(plan.value.length)
    expect(E.isRight(Trajectory.validate(demo))).toBe(true)
    const actions = demo.segments.filter((s) => s.kind === 'action')
    expect(words.decode(actions[0]!.tokens)).toContain(`<action>${plan.value[0]}</action>`)
    for (const a of actions) expect(renderer.template.stopTokens).toContain(a.tokens[a.tokens.length - 1])
  })
})
