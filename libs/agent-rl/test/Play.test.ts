import { Rng, Trajectory, type Env } from '@mtrl/core'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import { Agent, ChatTemplate, ModelConfig, Policy, Sampler, WordTokenizer } from '@mtrl/policy'
import { ActionFormat, Layout, Rollout } from '@mtrl/rollout'
import { Completions, Rollouts, Server } from '@mtrl/serving'
import { TestBackend, Toy } from '@mtrl/testing'
import { Config, Kl, Trainer } from '@mtrl/trainer-rl'
import * as E from 'fp-ts/lib/Either.js'
import type OpenAI from 'openai'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Play.js'

beforeAll(async () => {
  await TestBackend.use('cpu')
})

const must = async <A>(task: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const r = await task()
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

/** The policy served: an engine and a server with agent runs; `splice` false turns off the exact-id splice of replies sent back. */
const serve = async (agent: Agent.Agent, splice = true) => {
  const served = Completions.model(agent, { name: 'policy', slots: 16 })
  // splice off: a server that never finds the ids it sampled for a reply sent back (the mutation of the negative control)
  const model: ReturnType<typeof Completions.model> = splice ? served : { ...served, replies: { remember: () => undefined, idsOf: () => undefined } }
  const rollouts = Rollouts.make()
  const server = await must(Server.start({ model, rollouts }))
  return { model, rollouts, server, close: async () => (await server.close(), await model.close()) }
}

/**
 * An ordinary agent program with the openai client, written to play as mtrl's rollout does:
 * the same system and first user message, the reply's first line as the action, the
 * observation as the next user message.
 */
const textAgent =
  (options: { readonly maxTurns: number; readonly maxNewTokens: number; readonly temperature: number; readonly systemPrompt: string }): _.Agent =>
  async (run, llm) => {
    const start = await must(run.env.reset(run.seed))
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: Layout.system(options.systemPrompt, 'plain') },
      { role: 'user', content: Layout.firstUser(start.goal, start.text) }
    ]
    let reward = 0
    for (let turn = 0; turn < options.maxTurns; turn++) {
      const reply = await llm.client.chat.completions.create({ model: llm.model, messages, max_tokens: options.maxNewTokens, temperature: options.temperature })
      const content = reply.choices[0]!.message.content ?? ''
      const result = await must(run.env.step(ActionFormat.parse('plain')(content).action))
      reward += result.reward
      if (result.done) break
      messages.push({ role: 'assistant', content }, { role: 'user', content: result.observation })
    }
    return reward
  }

describe('Play: an agent written as code, through the served policy', () => {
  /** A tiny word-level policy on TextWorld w2-o3-q4, its built-in rollout on three seeds, and the same agent played as code through the server. */
  const bothWays = async (splice: boolean) => {
    const settings = Settings.parse('w2-o3-q4')
    if (E.isLeft(settings)) throw new Error(settings.left)
    const corpus: string[] = []
    for (let seed = 0; seed < 10; seed++) {
      const start = await must(TextWorld.make(settings.right).reset(seed))
      corpus.push(start.goal, start.text, ...(start.info.admissibleActions ?? []))
    }
    const tokenizer = WordTokenizer.build({ maxVocab: 400, minCount: 1 })(corpus)
    const policy = Policy.make(
      ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 32, layers: 2, heads: 4, maxLen: 512, prevTokenEmbedding: true, canonSpan: 3 }),
      3,
      { tokenizer }
    )
    const template = ChatTemplate.make(tokenizer)
    const agent = Agent.make(policy, undefined, tokenizer, template, 512)
    const seeds = [5, 6, 7]
    const options = { ...Rollout.defaultOptions, temperature: 0, maxTurns: 3, maxNewTokens: 6 }
    const envs = (): Env.Env[] => seeds.map(() => TextWorld.make(settings.right))

    const session = Sampler.make(policy, { slots: seeds.length, maxLen: 512 })
    const builtIn = await must(
      Rollout.run(options)({ session, template, tokenizer, contextLength: 512 })({ envs: envs(), seeds, groupSize: 1, rng: Rng.make(0) })
    )
    session.dispose()

    const served = await serve(agent, splice)
    const played = await must(
      _.play(textAgent(options), { url: served.server.url, rollouts: served.rollouts, model: 'policy', tokenizer })({
        envs: envs(),
        seeds,
        groupSize: 1,
        rng: Rng.make(0)
      })
    )
    await served.close()
    agent.dispose()
    return { builtIn, played, seeds }
  }

  it('yields, id for id, the token streams, action masks and sampler log-probs of the built-in rollout on the same seeds', async () => {
    const { builtIn, played, seeds } = await bothWays(true)
    expect(played.episodes).toHaveLength(seeds.length)
    // multi-turn episodes: observations between actions are part of what must match
    expect(builtIn.episodes.some((e) => e.trajectory.turns.length > 1)).toBe(true)
    played.episodes.forEach((episode, i) => {
      const want = builtIn.episodes[i]!.trajectory
      expect(episode.samples).toHaveLength(1)
      const got = episode.samples[0]!
      expect(got.seed).toBe(want.seed)
      expect(got.groupId).toBe(want.groupId)
      expect(Array.from(Trajectory.tokens(got))).toEqual(Array.from(Trajectory.tokens(want)))
      expect(Array.from(Trajectory.actionMask(got))).toEqual(Array.from(Trajectory.actionMask(want)))
      const logprobs = (t: Trajectory.Trajectory) => t.segments.flatMap((s) => (s.kind === 'action' ? Array.from(s.logprobs ?? []) : []))
      expect(logprobs(got)).toEqual(logprobs(want))
      expect(episode.trajectory.turnRewards).toHaveLength(want.turns.length)
    })
  })

  it('negative control: with the exact-id splice off (the server forgets the ids it sampled), the same comparison fails', async () => {
    // the mutation: replies sent back are re-encoded from their text, as a plain OpenAI-compatible server would
    const { builtIn, played } = await bothWays(false)
    const same = played.episodes.map(
      (episode, i) =>
        episode.samples.length === 1 &&
        Array.from(Trajectory.tokens(episode.samples[0]!)).join(',') === Array.from(Trajectory.tokens(builtIn.episodes[i]!.trajectory)).join(',')
    )
    expect(same.every(Boolean)).toBe(false)
  })

  it('fails the iteration, naming the run, when the agent throws, makes no call, or gives no reward', async () => {
    const tokenizer = Toy.tokenizer()
    const policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 }), 0, { tokenizer })
    const agent = Agent.make(policy, undefined, tokenizer, ChatTemplate.make(tokenizer), 64)
    const served = await serve(agent)
    const input = { envs: [Toy.bandit()], seeds: [1], groupSize: 1, rng: Rng.make(0) }
    const options = { url: served.server.url, rollouts: served.rollouts, model: 'policy' }
    const call = (llm: _.Llm) => llm.client.chat.completions.create({ model: llm.model, messages: [{ role: 'user', content: 'choose' }], max_tokens: 1 })
    const reason = async (agentFn: _.Agent): Promise<string> => {
      const r = await _.play(agentFn, options)(input)()
      return E.isLeft(r) && r.left._tag === 'StepFailed' ? r.left.reason : 'no failure'
    }
    expect(
      await reason(async () => {
        throw new Error('boom')
      })
    ).toBe('the agent threw: boom')
    expect(await reason(async () => 1)).toBe('the agent made no model call')
    expect(await reason(async (_run, llm) => (await call(llm), undefined))).toBe('the agent returned no reward and posted none')
    expect(await reason(async (_run, llm) => (await call(llm), [1, 2]))).toBe('the agent returned 2 rewards for 1 model calls (one per call, in call order)')
    await served.close()
    agent.dispose()
  })
})

describe('examples/textworld-agent.ts', () => {
  it('loads as a module and plays TextWorld episodes whose turns carry the environment reports', async () => {
    const settings = Settings.parse('w2-o3-q4')
    if (E.isLeft(settings)) throw new Error(settings.left)
    const start = await must(TextWorld.make(settings.right).reset(1))
    const tokenizer = WordTokenizer.build({ maxVocab: 400, minCount: 1 })([start.goal, start.text])
    const policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 512 }), 1, { tokenizer })
    const agent = Agent.make(policy, undefined, tokenizer, ChatTemplate.make(tokenizer), 512)
    const served = await serve(agent)
    const example = await _.fromModule(join(__dirname, '../../../examples/textworld-agent.ts'))
    if (E.isLeft(example)) throw new Error(example.left)
    const played = await must(
      _.play(example.right, { url: served.server.url, rollouts: served.rollouts, model: 'policy', tokenizer, temperature: 0.7, maxTokens: 6 })({
        envs: [1, 2].map(() => TextWorld.make(settings.right)),
        seeds: [1, 2],
        groupSize: 1,
        rng: Rng.make(0)
      })
    )
    for (const e of played.episodes) {
      expect(e.trajectory.turns.length).toBeGreaterThan(0)
      expect(e.trajectory.turns.every((t) => t.maxScore > 0)).toBe(true)
      expect(e.trajectory.turns.length).toBe(e.samples.reduce((n, s) => n + s.turns.length, 0))
    }
    expect(E.isLeft(await _.fromModule(join(__dirname, 'nothing.ts')))).toBe(true)
    // the guide shows the example as it is
    expect(readFileSync(join(__dirname, '../../../docs/guides/agents-as-code.md'), 'utf8')).toContain(
      readFileSync(join(__dirname, '../../../examples/textworld-agent.ts'), 'utf8').trim()
    )
    await served.close()
    agent.dispose()
  })
})

describe('Trainer through the endpoint', () => {
  it('GRPO trains an agent-as-code on the bandit from chance to >= 95% success', async () => {
    const tokenizer = Toy.tokenizer()
    const template = ChatTemplate.make(tokenizer)
    const policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 16, layers: 1, heads: 2, maxLen: 64 }), 0, { tokenizer })
    const agent = Agent.make(policy, undefined, tokenizer, template, 64)
    const served = await serve(agent)
    const config: Config.Config = Config.make({
      algorithm: 'grpo',
      kl: Kl.none, // GRPO without its KL term: no reference policy here
      budget: { seedsPerIteration: 4, groupSize: 4 },
      rollout: { systemPrompt: '', maxNewTokens: 1, temperature: 1, maxTurns: 1 },
      policy: { lr: 3e-2 },
      update: { minibatches: 1 }
    })
    const play = _.play(textAgent({ maxTurns: 1, maxNewTokens: 1, temperature: 1, systemPrompt: '' }), {
      url: served.server.url,
      rollouts: served.rollouts,
      model: 'policy',
      tokenizer
    })
    const trainer = Trainer.make({ config, policy, envs: Array.from({ length: 16 }, () => Toy.bandit()), template, tokenizer, contextLength: 64, play })
    const rates: number[] = []
    for (let i = 0; i < 40 && (rates[rates.length - 1] ?? 0) < 0.95; i++) {
      const m = await must(Trainer.iterate(trainer))
      rates.push(m['episode/success_rate'])
    }
    expect(rates[0]!, rates.join(' ')).toBeLessThan(0.5)
    expect(rates[rates.length - 1]!, rates.join(' ')).toBeGreaterThanOrEqual(0.95)
    trainer.dispose()
    await served.close()
    agent.dispose()
  })
})
