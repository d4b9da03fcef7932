import { Rng, Trajectory } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import { ChatTemplate, WordTokenizer } from '@mtrl/policy'
import * as O from 'fp-ts/lib/Option.js'
import { Batch } from '@mtrl/rollout'
import { Toy } from '@mtrl/testing'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/ExpertData.js'

const tokenizer = Toy.tokenizer()
const template = ChatTemplate.make(tokenizer)
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
    const bad = _.fromChatJsonl(renderer)(
      '{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"left"}]}\n{"messages":[{"role":"robot","content":"x"}]}'
    )
    expect(bad).toEqual(E.left(expect.stringContaining('line 2')))
    expect(E.isLeft(bad) && bad.left).toContain('messages.0.role')
    expect(_.fromChatJsonl(renderer)('not json')).toEqual(E.left(expect.stringContaining('line 1: invalid JSON')))
  })

  it('rejects conversations out of order or without an assistant turn', () => {
    expect(E.isLeft(_.fromConversation(renderer)({ messages: [{ role: 'assistant', content: 'left' }] }))).toBe(true)
    expect(E.isLeft(_.fromConversation(renderer)({ messages: [{ role: 'user', content: 'start' }] }))).toBe(true)
    expect(
      E.isLeft(
        _.fromConversation(renderer)({
          messages: [
            { role: 'user', content: 'a' },
            { role: 'user', content: 'b' }
          ]
        })
      )
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

  describe('play (expert asked each turn, with detours)', () => {
    const nextOf = async (env: import('@mtrl/core').Env.Env): Promise<string | undefined> =>
      O.toUndefined(TextWorld.expertAction(env as TextWorld.TextWorldEnv))
    const setup = async (seed: number) => {
      const env = TextWorld.make(Settings.custom(2, 3, 4))
      const start = await env.reset(seed)()
      if (E.isLeft(start)) throw new Error(start.left._tag)
      const plan = O.getOrElse((): ReadonlyArray<string> => [])(TextWorld.expertPlan(env))
      const words = WordTokenizer.build({ maxVocab: 2000, minCount: 1 })([
        start.right.goal,
        start.right.text,
        ...plan,
        ...(start.right.info.admissibleActions ?? [])
      ])
      return { env, plan, renderer: { template: ChatTemplate.make(words), tokenizer: words } }
    }
    const options = { systemPrompt: '', actionFormat: 'plain' as const, maxTurns: 12 }

    it('without detours records exactly what replaying the expert plan records', async () => {
      for (const seed of [1, 2, 3]) {
        const { env, plan, renderer } = await setup(seed)
        const replayed = await _.replay(options, renderer)(env, seed, plan)()
        const played = await _.play({ ...options, detourRate: 0, maxDetours: 1 }, renderer)(env, seed, nextOf, Rng.make(seed))()
        if (E.isLeft(replayed) || E.isLeft(played)) throw new Error('env error')
        expect(played.right).toEqual(replayed.right)
      }
    })

    it('a detour is an admissible non-expert action kept out of the loss, and the expert recovers to a win', async () => {
      let detoured = 0
      for (let seed = 0; seed < 20; seed++) {
        const { env, plan, renderer } = await setup(seed)
        const played = await _.play({ ...options, detourRate: 1, maxDetours: 1 }, renderer)(env, seed, nextOf, Rng.make(seed))()
        if (E.isLeft(played)) throw new Error('env error')
        const demo = played.right
        expect(E.isRight(Trajectory.validate(demo))).toBe(true)
        const actions = demo.segments.filter((s) => s.kind === 'action')
        // detourRate 1, at most one: the first action is the detour, every later one is the expert's
        expect(actions[0]!.trainable).toBe(false)
        expect(actions.slice(1).every((a) => a.trainable === undefined)).toBe(true)
        expect(demo.turns[0]!.action).not.toBe(plan[0])
        // the loss never sees the detour: the action mask is 0 exactly on its tokens
        const mask = Trajectory.actionMask(demo)
        const batch = Batch.make({ pad: 0 })([demo])
        expect(Array.from(batch.actionMask.slice(0, mask.length))).toEqual(Array.from(mask))
        let offset = 0
        for (const s of demo.segments) {
          const expected = s.kind === 'action' && s.trainable !== false ? 1 : 0
          for (let i = 0; i < s.tokens.length; i++) expect(mask[offset + i]).toBe(expected)
          offset += s.tokens.length
        }
        if (demo.won) detoured += 1
      }
      // most detours are recoverable (a few, like eating the quest's object, are not)
      expect(detoured).toBeGreaterThanOrEqual(15)
    })
  })
})
