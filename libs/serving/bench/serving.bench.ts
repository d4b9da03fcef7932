/**
 * The OpenAI-compatible server under load: N concurrent agents (1, 8, 32), each playing its own
 * TextWorld w2-o3-q4 game through the official `openai` client for 8 turns (10 new tokens a
 * turn at most, temperature 0.7), against the raw sampler doing the same multi-turn work in
 * lockstep (one `generate` call per turn for all N games, no HTTP, no re-rendering). The model
 * has the default recipe's shape (2 layers, d 128, 8 heads, context 512, canon mixing), random
 * weights, a word tokenizer built from the games' text; the default (wasm) backend.
 *
 * Prints generated tokens/s of both and their ratio (goal: >= 60% at 32 agents), requests/s,
 * and the prefix cache's effect: prompt tokens encoded per request with and without it.
 *
 *   npm run bench -w @mtrl/serving
 */
import { Backend } from '@mtrl/backend'
import { Rng, type Env } from '@mtrl/core'
import { TextWorld, Settings } from '@mtrl/env-textworld'
import { Agent, ChatTemplate, ModelConfig, Policy, Sampler, WordTokenizer } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import OpenAI from 'openai'
import * as Completions from '../src/Completions.js'
import * as Server from '../src/Server.js'

const TURNS = 8
const NEW = 10
const TEMPERATURE = 0.7
const SYSTEM = 'You are an agent in a text environment.'

const settings = (() => {
  const s = Settings.parse('w2-o3-q4')
  if (E.isLeft(s)) throw new Error(s.left)
  return s.right
})()

const must = async <A>(task: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const r = await task()
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

/** Text of some games (observations and admissible commands), for the tokenizer. */
const corpus = async (): Promise<string[]> => {
  const texts: string[] = []
  for (let seed = 0; seed < 60; seed++) {
    const env = TextWorld.make(settings)
    const start = await must(env.reset(10_000 + seed))
    let actions = start.info.admissibleActions ?? []
    texts.push(SYSTEM, start.goal, start.text, ...actions)
    const rng = Rng.make(seed)
    for (let t = 0; t < 6; t++) {
      const r = await must(env.step(actions[rng.int(actions.length)] ?? 'look'))
      actions = r.info.admissibleActions ?? []
      texts.push(r.observation, ...actions)
      if (r.done) break
    }
    await env.close()()
  }
  return texts
}

interface Figures {
  readonly seconds: number
  readonly generated: number
  readonly requests: number
  readonly promptTokens: number
  readonly cachedTokens: number
}

/** The raw sampler: N games in lockstep, one generate call per turn. */
const raw = async (policy: Policy.Policy, tokenizer: WordTokenizer.WordTokenizer, n: number): Promise<Figures> => {
  const template = ChatTemplate.make(tokenizer)
  const envs: Env.Env[] = Array.from({ length: n }, () => TextWorld.make(settings))
  const session = Sampler.make(policy, { slots: n, maxLen: 512 })
  const rngs = Array.from({ length: n }, (_, i) => Rng.make(i))
  const t0 = performance.now()
  const starts = await Promise.all(envs.map((env, i) => must(env.reset(i))))
  session.append(
    envs.map((_, i) => i),
    starts.map((s) => template.prompt(SYSTEM, `${s.goal}\n${s.text}`))
  )
  let active = envs.map((_, i) => i)
  let generated = 0
  let requests = 0
  for (let turn = 0; turn < TURNS && active.length > 0; turn++) {
    const out = session.generate(active, { maxNewTokens: NEW, temperature: TEMPERATURE, stopTokens: template.stopTokens, rng: active.map((i) => rngs[i]!) })
    requests += active.length
    const next: number[] = []
    const observations: Int32Array[] = []
    for (const [k, i] of active.entries()) {
      const g = out[k]!
      generated += g.tokens.length
      const reply = tokenizer.decode(g.stopped ? g.tokens.subarray(0, g.tokens.length - 1) : g.tokens)
      const r = await must(envs[i]!.step(reply))
      const observation = template.observation(r.observation)
      if (!r.done && turn + 1 < TURNS && session.length(i) + observation.length + NEW <= 512) {
        next.push(i)
        observations.push(observation)
      }
    }
    if (next.length > 0) session.append(next, observations)
    active = next
  }
  const seconds = (performance.now() - t0) / 1000
  session.dispose()
  await Promise.all(envs.map((e) => e.close()()))
  return { seconds, generated, requests, promptTokens: 0, cachedTokens: 0 }
}

/** N agents through the server, each an ordinary openai-client loop over its game. */
const served = async (agent: Agent.Agent, n: number, prefixCache: boolean): Promise<Figures> => {
  const model = Completions.model(agent, { name: 'agent', slots: Math.max(n, 1), prefixCache })
  const server = await must(Server.start({ model }))
  const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'none', maxRetries: 0 })
  let generated = 0
  let requests = 0
  let promptTokens = 0
  let cachedTokens = 0
  const play = async (i: number): Promise<void> => {
    const env = TextWorld.make(settings)
    const start = await must(env.reset(i))
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `${start.goal}\n${start.text}` }
    ]
    for (let turn = 0; turn < TURNS; turn++) {
      const asked = client.chat.completions.create({ model: 'agent', messages, max_tokens: NEW, temperature: TEMPERATURE, seed: i * 100 + turn })
      // a conversation that outgrows the context ends, as an agent's would
      const done = await asked.catch((e: unknown) => {
        if (e instanceof OpenAI.BadRequestError && e.code === 'context_length_exceeded') return undefined
        throw e
      })
      if (done === undefined) break
      requests++
      generated += done.usage!.completion_tokens
      promptTokens += done.usage!.prompt_tokens
      cachedTokens += done.usage!.prompt_tokens_details?.cached_tokens ?? 0
      const reply = done.choices[0]!.message.content ?? ''
      const r = await must(env.step(reply))
      if (r.done) break
      messages.push({ role: 'assistant', content: reply }, { role: 'user', content: r.observation })
    }
    await env.close()()
  }
  const t0 = performance.now()
  await Promise.all(Array.from({ length: n }, (_, i) => play(i)))
  const seconds = (performance.now() - t0) / 1000
  await server.close()
  await model.close()
  return { seconds, generated, requests, promptTokens, cachedTokens }
}

const main = async (): Promise<void> => {
  const backend = await must(Backend.select('wasm'))
  const tokenizer = WordTokenizer.build(WordTokenizer.defaultOptions)(await corpus())
  const config = ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 128, layers: 2, heads: 8, maxLen: 512, prevTokenEmbedding: true, canonSpan: 3 })
  const policy = Policy.make(config, 0, { tokenizer })
  const agent = Agent.make(policy, undefined, tokenizer, ChatTemplate.make(tokenizer), 512)
  process.stdout.write(
    `backend ${backend.name}; model d ${config.dModel}, ${config.layers} layers, vocab ${config.vocab}; ${TURNS} turns, <= ${NEW} new tokens a turn, temperature ${TEMPERATURE}\n\n`
  )
  process.stdout.write('agents | raw sampler tok/s | served tok/s | ratio | requests/s | prompt tokens encoded per request: cache on / off\n')
  for (const n of [1, 8, 32]) {
    await raw(policy, tokenizer, n) // warm-up
    const r = await raw(policy, tokenizer, n)
    const on = await served(agent, n, true)
    const off = await served(agent, n, false)
    const rate = (f: Figures): number => f.generated / f.seconds
    const encoded = (f: Figures, cache: boolean): string => ((f.promptTokens - (cache ? f.cachedTokens : 0)) / f.requests).toFixed(1)
    process.stdout.write(
      `${String(n).padStart(6)} | ${rate(r).toFixed(0).padStart(17)} | ${rate(on).toFixed(0).padStart(12)} | ${(rate(on) / rate(r)).toFixed(2).padStart(5)} | ${(on.requests / on.seconds).toFixed(1).padStart(10)} | ${encoded(on, true)} / ${encoded(off, false)} (of ${(on.promptTokens / on.requests).toFixed(1)}; without the cache ${rate(off).toFixed(0)} tok/s)\n`
    )
  }
  agent.dispose()
}

void main()
