import * as E from 'fp-ts/lib/Either.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Chat } from '@mtrl/core'
import * as _ from '../src/ChatPolicy.js'
import * as Episode from '../src/Episode.js'
import * as LockEnv from './fixtures/LockEnv.js'
import * as OpenAi from './fixtures/openAiServer.js'

/** A "model" that knows the lock: the next digit of the combination named in the first observation. */
const lockModel = (body: OpenAi.Seen['body']): string => {
  const seed = Number(/Seed (\d+)\./.exec(body.messages[1]?.content ?? '')?.[1])
  const k = body.messages.filter((m) => m.role === 'assistant').length
  return `Thought: digit ${k + 1}.\nAction: ${LockEnv.combination(seed)[k] ?? 'zero'}`
}

let server: OpenAi.Fixture
beforeAll(async () => {
  server = await OpenAi.start(lockModel)
})
afterAll(() => server.close())

const ask = [Chat.system('You open locks.'), Chat.user('A safe. Seed 3.')]
const options = (more: Partial<_.Options> = {}): _.Options => ({ baseUrl: server.url, model: 'tiny-lock-1', backoffMs: 1, ...more })

describe('ChatPolicy', () => {
  it('sends the model, messages, temperature, max tokens and the key from the named env var', async () => {
    server.script({ _tag: 'Reply', content: 'Action: seven' })
    const policy = _.make(options({ apiKeyEnv: 'MY_KEY', temperature: 0.7, maxTokens: 32 }), { MY_KEY: 'sk-test' })
    expect(await policy.complete(ask)()).toEqual(E.right('Action: seven'))
    const last = server.seen[server.seen.length - 1]!
    expect(last.authorization).toBe('Bearer sk-test')
    expect(last.body).toMatchObject({ model: 'tiny-lock-1', messages: ask, temperature: 0.7, max_tokens: 32 })
    expect(policy.usage()).toEqual({ requests: 1, promptTokens: 42, completionTokens: 7 })
  })

  it('sends no authorization header when the key variable is unset', async () => {
    await _.make(options(), {}).complete(ask)()
    expect(server.seen[server.seen.length - 1]!.authorization).toBeUndefined()
  })

  it('retries a 503, then a 429 with Retry-After, then succeeds', async () => {
    const before = server.seen.length
    server.script(
      { _tag: 'Status', status: 503, body: { error: { message: 'overloaded' } } },
      { _tag: 'Status', status: 429, body: { error: { message: 'slow down' } }, retryAfter: '0' }
    )
    expect(await _.make(options(), {}).complete(ask)()).toEqual(E.right('Thought: digit 1.\nAction: ' + LockEnv.combination(3)[0]))
    expect(server.seen.length - before).toBe(3)
  })

  it('does not retry a 400 and says why it failed', async () => {
    const before = server.seen.length
    server.script({ _tag: 'Status', status: 400, body: { error: { message: 'context too long' } } })
    const result = await _.make(options(), {}).complete(ask)()
    expect(E.isLeft(result) && result.left).toMatchObject({ _tag: 'Status', status: 400 })
    expect(E.isLeft(result) && _.message(result.left)).toContain('HTTP 400: {"error":{"message":"context too long"}}')
    expect(server.seen.length - before).toBe(1)
  })

  it('times out a slow answer, per attempt, and gives up after the retries', async () => {
    server.script({ _tag: 'Slow', ms: 3_000, content: 'late' }, { _tag: 'Slow', ms: 3_000, content: 'late' })
    const result = await _.make(options({ timeoutMs: 100, retries: 1 }), {}).complete(ask)()
    expect(E.isLeft(result) && result.left).toEqual({ _tag: 'Timeout', call: `POST ${server.url}/chat/completions`, ms: 100, attempts: 2 })
  })

  it('rejects a body that is not a chat completion, naming the bad field', async () => {
    server.script(
      { _tag: 'Raw', body: '{"choices": [{"message": {"content": 5}}]}' },
      { _tag: 'Reply', content: null },
      { _tag: 'Raw', body: 'upstream error' }
    )
    const policy = _.make(options(), {})
    const bad = await policy.complete(ask)()
    expect(E.isLeft(bad) && _.message(bad.left)).toContain('choices.0.message.content')
    const empty = await policy.complete(ask)()
    expect(E.isLeft(empty) && _.message(empty.left)).toContain('no choice with text content')
    const text = await policy.complete(ask)()
    expect(E.isLeft(text) && _.message(text.left)).toContain('not JSON')
  })

  it('keeps at most `concurrency` requests in flight', async () => {
    const held = await OpenAi.start(lockModel, 40)
    try {
      const policy = _.make({ baseUrl: held.url, model: 'm', concurrency: 3 }, {})
      const all = await Promise.all(Array.from({ length: 12 }, () => policy.complete(ask)()))
      expect(all.every(E.isRight)).toBe(true)
      expect(held.peak()).toBeLessThanOrEqual(3)
      expect(held.peak()).toBeGreaterThan(1)
    } finally {
      await held.close()
    }
  })

  it('plays an episode as an agent: the conversation goes to the server, the parsed action to the env', async () => {
    const policy = _.make(options(), {})
    const episode = await Episode.play()(policy.agent)(LockEnv.make(), 11)()
    if (E.isLeft(episode)) throw new Error(Episode.message(episode.left))
    expect(episode.right.won).toBe(true)
    expect(episode.right.turns.map((t) => t.action)).toEqual(LockEnv.combination(11))
    expect(episode.right.messages[2]!.content).toBe(`Thought: digit 1.\nAction: ${LockEnv.combination(11)[0]}`)
    const lastRequest = server.seen[server.seen.length - 1]!.body.messages
    expect(lastRequest).toEqual(episode.right.messages.slice(0, lastRequest.length))
  })

  it('ends the episode with AgentFailed when the endpoint keeps failing', async () => {
    server.script({ _tag: 'Status', status: 500, body: 'boom' }, { _tag: 'Status', status: 500, body: 'boom' })
    const policy = _.make(options({ retries: 1 }), {})
    const episode = await Episode.play()(policy.agent)(LockEnv.make(), 1)()
    expect(E.isLeft(episode) && episode.left).toMatchObject({ _tag: 'AgentFailed', turn: 0 })
    expect(E.isLeft(episode) && Episode.message(episode.left)).toContain('HTTP 500')
  })
})
