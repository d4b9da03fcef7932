import { Rng, Trajectory, type Env } from '@mtrl/core'
import { AlfWorld } from '@mtrl/env-alfworld'
import { Agent, ChatTemplate, ModelConfig, Policy, Sampler, Scoring, WordTokenizer } from '@mtrl/policy'
import { Layout, Rollout } from '@mtrl/rollout'
import { Completions, Rollouts, Server, type Capture } from '@mtrl/serving'
import { TestBackend } from '@mtrl/testing'
import { Demonstrations } from '@mtrl/trainer-sft'
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import * as _ from '../src/Play.js'

beforeAll(async () => {
  await TestBackend.use('wasm')
})

const must = async <A>(task: () => Promise<E.Either<unknown, A>>): Promise<A> => {
  const r = await task()
  if (E.isLeft(r)) throw new Error(JSON.stringify(r.left))
  return r.right
}

/** The policy served: an engine and a server with agent runs. */
const serve = async (agent: Agent.Agent) => {
  const model = Completions.model(agent, { name: 'policy', slots: 8 })
  const rollouts = Rollouts.make()
  const server = await must(Server.start({ model, rollouts }))
  return { model, rollouts, server, close: async () => (await server.close(), await model.close()) }
}

describe('examples/alfworld-tools.ts (the ai SDK with a tool)', () => {
  it('plays ALFWorld through the endpoint with the tokens, masks and log-probs of the built-in rollout in the tool format, id for id', async () => {
    const turnsKept = 3
    const source = AlfWorld.source({ split: 'train', maxTurns: turnsKept })
    const texts = await must(Demonstrations.corpus(20, (a) => [a, Layout.reply('tool', a)])(source, Rng.make(1)))
    const tokenizer = WordTokenizer.build({ maxVocab: 900, minCount: 1 })([...texts, Layout.system('', 'tool')])
    const template = ChatTemplate.make(tokenizer)
    const options = { ...Rollout.defaultOptions, actionFormat: 'tool' as const, systemPrompt: '', temperature: 0, maxTurns: turnsKept, maxNewTokens: 40 }
    // a small model taught (seconds of SFT on the first turns of expert demonstrations in the tool format) to write tool calls
    const demos = await must(
      Demonstrations.fromExpert({ ...options, maxTurns: 50, episodes: 3, detourRate: 0, maxDetours: 0, contextLength: 4096 }, { template, tokenizer })(
        AlfWorld.source({ split: 'train' }),
        Rng.make(2)
      )
    )
    const firstTurns = demos.map((d) => ({ ...d, segments: d.segments.filter((s) => s.turn < turnsKept) }))
    const rows = firstTurns.map((d) => ({ ids: Array.from(Trajectory.tokens(d)), mask: Array.from(Trajectory.actionMask(d)) }))
    const T = Math.max(...rows.map((r) => r.ids.length))
    const policy = Policy.make(ModelConfig.make({ vocab: tokenizer.vocabSize, dModel: 48, layers: 2, heads: 4, ffn: 96, maxLen: 512 }), 5, { tokenizer })
    const ids = tf.tensor2d(
      rows.map((r) => [...r.ids, ...new Array<number>(T - r.ids.length).fill(0)]),
      [rows.length, T],
      'int32'
    )
    const mask = tf.tensor2d(
      rows.map((r) => [...r.mask, ...new Array<number>(T - r.mask.length).fill(0)]),
      [rows.length, T]
    )
    const optimizer = tf.train.adam(0.01)
    for (let step = 0; step < 150; step++)
      tf.tidy(() => {
        optimizer.minimize(
          () => tf.neg(tf.sum(tf.mul(Scoring.tokenLogprobs(policy)(ids).logprobs, mask))) as tf.Scalar,
          false,
          Policy.trainableVariables(policy)
        )
      })
    optimizer.dispose()
    tf.dispose([ids, mask])

    const agent = Agent.make(policy, undefined, tokenizer, template, 512)
    const seeds = demos.map((d) => d.seed)
    const envs = (): Env.Env[] => seeds.map(() => AlfWorld.make({ split: 'train', maxTurns: turnsKept }))
    const session = Sampler.make(policy, { slots: seeds.length, maxLen: 512 })
    const builtIn = await must(
      Rollout.run(options)({ session, template, tokenizer, contextLength: 512 })({ envs: envs(), seeds, groupSize: 1, rng: Rng.make(0) })
    )
    session.dispose()
    // the taught model calls the tool, over several turns
    expect(builtIn.episodes.flatMap((e) => e.trajectory.turns).filter((t) => t.parsed).length).toBeGreaterThan(seeds.length)

    const served = await serve(agent)
    const example = await _.fromModule(join(__dirname, '../../../examples/alfworld-tools.ts'))
    if (E.isLeft(example)) throw new Error(example.left)
    // every call the runs make, as the server records them
    const calls: Capture.Call[] = []
    const rollouts: Rollouts.Rollouts = {
      ...served.rollouts,
      close: (id) => (calls.push(...(served.rollouts.get(id)?.calls() ?? [])), served.rollouts.close(id))
    }
    const played = await must(
      _.play(example.right, { url: served.server.url, rollouts, model: 'policy', tokenizer, temperature: 0, maxTokens: options.maxNewTokens })({
        envs: envs(),
        seeds,
        groupSize: 1,
        rng: Rng.make(0)
      })
    )
    await served.close()
    // several model calls per episode, every reply sent back as the server wrote it (no drift)
    expect(played.episodes.reduce((n, e) => n + e.samples[0]!.turns.length, 0)).toBeGreaterThan(seeds.length)
    expect(calls.length).toBe(played.episodes.reduce((n, e) => n + e.samples[0]!.turns.length, 0))
    expect(_.drift(calls)).toBe(0)
    played.episodes.forEach((episode, i) => {
      const want = builtIn.episodes[i]!.trajectory
      const got = episode.samples[0]!
      expect(episode.samples).toHaveLength(1)
      // the ai SDK stops at a reply without a tool call, where the built-in rollout goes on: equal up to there
      const wanted = want.turns.findIndex((t) => !t.parsed)
      const turns = wanted < 0 ? want.turns.length : wanted + 1
      expect(got.turns).toHaveLength(turns)
      // the agent never sends the observation after its last call: compare without it
      const cut = (t: Trajectory.Trajectory) => ({
        ...t,
        segments: t.segments.filter((s) => s.turn < turns && !(s.kind === 'observation' && s.turn === turns - 1))
      })
      expect(Array.from(Trajectory.tokens(got))).toEqual(Array.from(Trajectory.tokens(cut(want))))
      expect(Array.from(Trajectory.actionMask(got))).toEqual(Array.from(Trajectory.actionMask(cut(want))))
      const logprobs = (t: Trajectory.Trajectory) => t.segments.flatMap((s) => (s.kind === 'action' ? Array.from(s.logprobs ?? []) : []))
      expect(logprobs(got)).toEqual(logprobs(cut(want)))
      expect(got.turns.map((t) => t.valid)).toEqual(want.turns.slice(0, turns).map((t, k) => t.parsed && t.valid && k < turns))
      expect(episode.trajectory.won).toBe(want.won && wanted < 0)
    })
    agent.dispose()
  })
})
