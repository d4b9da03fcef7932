import { Rng } from '@mtrl/core'
import { Agent, ChatTemplate, ModelConfig, Policy } from '@mtrl/policy'
import { Completions, Rollouts, Server } from '@mtrl/serving'
import { TestBackend, Toy } from '@mtrl/testing'
import { Config, Kl, Trainer } from '@mtrl/trainer-rl'
import * as E from 'fp-ts/lib/Either.js'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Judge.js'
import * as Play from '../src/Play.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const must = async <A>(task: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const r = await task()
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

interface Asked {
  readonly body: { model: string; messages: Array<{ role: string; content: string }>; response_format?: { type: string }; temperature?: number }
}

/**
 * A scripted judge: an OpenAI-compatible server that reads the trajectories of the user message
 * and scores each with `score(its messages)`, answering in reverse order (ids must be honoured).
 */
const scriptedJudge = async (score: (messages: ReadonlyArray<{ role: string; content: string }>) => number, answer?: (n: number) => string) => {
  const asked: Asked[] = []
  const server = http.createServer((req, res) => {
    let text = ''
    req.on('data', (c: Buffer) => (text += c.toString()))
    req.on('end', () => {
      const body = JSON.parse(text) as Asked['body']
      asked.push({ body })
      const user = body.messages.find((m) => m.role === 'user')!.content
      const trajectories = [...user.matchAll(/<trajectory id="(\d+)">\n(.*)\n<\/trajectory>/gu)].map((m) => ({
        id: m[1]!,
        messages: JSON.parse(m[2]!) as Array<{ role: string; content: string }>
      }))
      const content =
        answer?.(trajectories.length) ??
        JSON.stringify({ scores: trajectories.reverse().map((t) => ({ trajectory_id: t.id, explanation: 'scripted', score: score(t.messages) })) })
      res.setHeader('content-type', 'application/json')
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }]
        })
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  return { url, asked, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const closers: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const close of closers) await close()
})

describe('Judge.parse', () => {
  it('reads scores in trajectory order, fenced or not', () => {
    expect(_.parse(2)('{"scores": [{"trajectory_id": "2", "explanation": "", "score": 0.25}, {"trajectory_id": "1", "explanation": "", "score": 1}]}')).toEqual(
      E.right([1, 0.25])
    )
    expect(_.parse(1)('```json\n{"scores": [{"trajectory_id": 1, "score": 0}]}\n```')).toEqual(E.right([0]))
  })
  it('names what is wrong with a malformed answer', () => {
    expect(_.parse(2)('I like the first one')).toEqual(E.left("the judge's answer is not JSON: I like the first one"))
    expect(_.parse(2)('{"ranking": []}')).toEqual(E.left('the judge\'s answer has no "scores" list: {"ranking": []}'))
    expect(_.parse(2)('{"scores": [{"trajectory_id": "3", "score": 0.5}]}')).toEqual(E.left('scores.0.trajectory_id: expected one of 1..2, got "3"'))
    expect(_.parse(2)('{"scores": [{"trajectory_id": "1", "score": 0.5}, {"trajectory_id": "1", "score": 0.5}]}')).toEqual(
      E.left('scores.1: trajectory 1 is scored twice')
    )
    expect(_.parse(2)('{"scores": [{"trajectory_id": "1", "score": 1.5}]}')).toEqual(E.left('scores.0.score: expected a number in [0, 1], got 1.5'))
    expect(_.parse(2)('{"scores": [{"trajectory_id": "1", "score": "high"}]}')).toEqual(E.left('scores.0.score: expected a number in [0, 1], got "high"'))
    expect(_.parse(2)('{"scores": [{"trajectory_id": "2", "score": 0.5}]}')).toEqual(E.left('the judge gave no score for trajectory 1 of 2'))
  })
})

describe('Judge.make against a scripted judge server', () => {
  it('sends the shared task once and each trajectory after it, with the rubric and a JSON schema, and returns scores in trajectory order', async () => {
    const judge = await scriptedJudge((messages) => (messages[messages.length - 1]!.content === 'took the key' ? 0.9 : 0.1))
    closers.push(judge.close)
    const task = [
      { role: 'system', content: 'You are in a house.' },
      { role: 'user', content: 'Find the key.' }
    ]
    const group = [
      [...task, { role: 'assistant', content: 'looked around' }],
      [...task, { role: 'assistant', content: 'took the key' }],
      [...task, { role: 'assistant', content: 'slept' }]
    ]
    const scores = await _.make({ baseURL: judge.url, model: 'judge', rubric: 'Taking the key is the goal.' })(group)
    expect(scores).toEqual(E.right([0.1, 0.9, 0.1]))
    const { body } = judge.asked[0]!
    expect(body.model).toBe('judge')
    expect(body.temperature).toBe(0)
    expect(body.response_format?.type).toBe('json_schema')
    expect(body.messages[0]!.content).toContain('Taking the key is the goal.')
    const user = body.messages[1]!.content
    expect(user.startsWith(`<context>\n${JSON.stringify(task)}\n</context>`)).toBe(true)
    expect(user).toContain(`<trajectory id="2">\n${JSON.stringify([{ role: 'assistant', content: 'took the key' }])}\n</trajectory>`)
    expect(user.match(/Find the key/gu)).toHaveLength(1)
    // without the schema option, no response_format
    await _.make({ baseURL: judge.url, model: 'judge', jsonSchema: false })(group)
    expect(judge.asked[1]!.body.response_format).toBeUndefined()
  })
  it('gives an error, not a score, for a malformed answer or an unreachable judge', async () => {
    const judge = await scriptedJudge(
      () => 0,
      () => 'no idea'
    )
    closers.push(judge.close)
    const group = [
      [
        { role: 'user', content: 'task' },
        { role: 'assistant', content: 'a' }
      ]
    ]
    expect(await _.make({ baseURL: judge.url, model: 'judge' })(group)).toEqual(E.left("the judge's answer is not JSON: no idea"))
    const down = await _.make({ baseURL: 'http://127.0.0.1:9/v1', model: 'judge' })(group)
    expect(E.isLeft(down) && down.left.startsWith('the judge at http://127.0.0.1:9/v1 failed:')).toBe(true)
  })
})

describe('a judge as the reward of agents written as code', () => {
  it('GRPO learns, from the judge scores alone, the reply the judge prefers (the agent returns no reward)', async () => {
    // the judge prefers "right"; the agent gives no reward of its own
    const judge = await scriptedJudge((messages) => (messages[messages.length - 1]!.content === 'right' ? 1 : 0))
    closers.push(judge.close)
    const tokenizer = Toy.tokenizer()
    const template = ChatTemplate.make(tokenizer)
    const policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 }), 0, { tokenizer })
    const agent = Agent.make(policy, undefined, tokenizer, template, 64)
    const model = Completions.model(agent, { name: 'policy', slots: 16 })
    const rollouts = Rollouts.make()
    const server = await must(Server.start({ model, rollouts }))
    const config: Config.Config = Config.make({
      algorithm: 'grpo',
      kl: Kl.none, // GRPO without its KL term: no reference policy here
      budget: { seedsPerIteration: 4, groupSize: 4 },
      rollout: { systemPrompt: '', maxNewTokens: 1, temperature: 1, maxTurns: 1 },
      policy: { lr: 3e-2 },
      update: { minibatches: 1 }
    })
    const chooser: Play.Agent = async (_run, llm) => {
      await llm.client.chat.completions.create({ model: llm.model, messages: [{ role: 'user', content: 'choose' }], max_tokens: 1, temperature: 1 })
      return undefined
    }
    const play = Play.play(chooser, { url: server.url, rollouts, model: 'policy', tokenizer, judge: _.make({ baseURL: judge.url, model: 'judge' }) })
    // one judge call per group: the four runs of a task are judged together
    const once = await must(play({ envs: Array.from({ length: 8 }, () => Toy.bandit()), seeds: [1, 2], groupSize: 4, rng: Rng.make(0) }))
    expect(judge.asked).toHaveLength(2)
    for (const e of once.episodes) expect(e.trajectory.turnRewards).toEqual([e.trajectory.turns[0]!.action === 'right' ? 1 : 0])
    const trainer = Trainer.make({
      config,
      policy,
      envs: Array.from({ length: 16 }, () => Toy.bandit()),
      template,
      tokenizer,
      contextLength: 64,
      play,
      reward: (t) => t.turnRewards
    })
    const returns: number[] = []
    for (let i = 0; i < 40 && (returns[returns.length - 1] ?? 0) < 0.95; i++) returns.push((await must(Trainer.iterate(trainer)))['episode/return'])
    expect(returns[0]!, returns.join(' ')).toBeLessThan(0.6)
    expect(returns[returns.length - 1]!, returns.join(' ')).toBeGreaterThanOrEqual(0.95)
    trainer.dispose()
    await server.close()
    await model.close()
    agent.dispose()
  })
})
