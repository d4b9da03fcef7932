import { type Env, EnvError, Rng } from '@mtrl/core'
import { AlfWorld, Expert as AlfExpert } from '@mtrl/env-alfworld'
import { Settings, TextWorld } from '@mtrl/env-textworld'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import { afterAll, describe, expect, it } from 'vitest'
import * as EnvServer from '../src/EnvServer.js'
import * as _ from '../src/Episode.js'
import * as Expert from '../src/Expert.js'
import * as HttpEnv from '../src/HttpEnv.js'
import * as LockEnv from './fixtures/LockEnv.js'

const right = <A>(result: E.Either<_.EpisodeError, A>): A => {
  if (E.isLeft(result)) throw new Error(_.message(result.left))
  return result.right
}

/** A deterministic agent that wanders: an admissible action chosen from a hash of the history. */
const wanderer: _.Agent = async (history) => {
  const info = history.turns[history.turns.length - 1]?.result.info ?? history.start.info
  const options = info.admissibleActions ?? ['look']
  const rng = Rng.make(history.seed * 1000 + history.turns.length)
  return rng.int(5) === 0 ? 'dance wildly' : Rng.pick(rng)(options)
}

const servers: EnvServer.EnvServer[] = []
afterAll(async () => {
  for (const s of servers) await s.close()()
})
const serve = async (factory: Env.EnvFactory): Promise<Env.Env> => {
  const started = await EnvServer.start({ factory })()
  if (E.isLeft(started)) throw new Error(started.left.reason)
  servers.push(started.right)
  const env = await HttpEnv.connect({ baseUrl: started.right.url })()
  if (E.isLeft(env)) throw new Error(EnvError.message(env.left))
  return env.right
}

describe('Episode.play', () => {
  it('writes the conversation: system prompt with the action format, observations as user, replies as assistant', async () => {
    const env = LockEnv.make()
    const episode = right(await _.play()(Expert.fromActions(['hello', ...LockEnv.combination(2)]))(env, 2)())
    expect(episode.won).toBe(true)
    expect(episode.truncated).toBe(false)
    expect(episode.totalReward).toBe(3)
    const roles = episode.messages.map((m) => m.role)
    expect(roles).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant'])
    expect(episode.messages[0]!.content).toContain(env.spec.actionFormat)
    expect(episode.messages[1]!.content).toBe('Your task: Open the lock of safe #2.\n\nA safe with a 3-digit lock. Seed 2.')
    expect(episode.messages[2]!.content).toBe('hello')
    expect(episode.messages[3]!.content).toBe('Nothing happens (turn 1).')
  })

  it('stops at the turn budget and marks the episode truncated', async () => {
    const episode = right(await _.play({ maxTurns: 4 })(async () => 'nonsense')(LockEnv.make(), 1)())
    expect(episode.turns).toHaveLength(4)
    expect(episode).toMatchObject({ done: false, won: false, truncated: true })
  })

  it('ends with AgentFailed when the agent rejects, and passes environment errors through', async () => {
    const failing = await _.play()(Expert.fromActions(['one']))(LockEnv.make(), 5)()
    expect(E.isLeft(failing) && failing.left).toMatchObject({ _tag: 'AgentFailed', seed: 5, turn: 1, reason: 'the plan for seed 5 has only 1 actions' })
    const crashed = await _.play()(Expert.fromActions(['crash']))(LockEnv.make(), 5)()
    expect(E.isLeft(crashed) && crashed.left).toEqual(EnvError.stepFailed('lock', 'crash', 'the lock jammed'))
  })

  it('reads an episode as an outcome: won, validity and reward of every turn', async () => {
    const won = right(await _.play()(Expert.fromActions(['hm', ...LockEnv.combination(1)]))(LockEnv.make(), 1)())
    const lost = right(await _.play({ maxTurns: 2 })(Expert.fromActions(['hm', 'hm']))(LockEnv.make(), 1)())
    const [a, b] = [won, lost].map(_.outcome)
    expect(a!.won).toBe(true)
    expect(b).toEqual({ won: false, turns: [{ valid: false }, { valid: false }], turnRewards: lost.turns.map((t) => t.result.reward) })
    expect(a!.turns.length).toBe(won.turns.length)
    expect(a!.turnRewards.reduce((x, y) => x + y, 0)).toBe(won.totalReward)
  })

  it('parses the action after the last "Action:", else the first non-empty line', () => {
    expect(_.defaultParseAction('Thought: the key\nAction: take key\n')).toBe('take key')
    expect(_.defaultParseAction('\n  go north  \nbecause')).toBe('go north')
    fc.assert(fc.property(fc.stringMatching(/^[a-z][a-z ]{0,20}[a-z]$/), (action) => _.defaultParseAction(`I think.\nAction: ${action}`) === action))
  })
})

describe('remote play equals in-process play', () => {
  it('TextWorld: the expert, replayed over HTTP, and a wandering agent give the same transcripts', async () => {
    const settings = Settings.custom(2, 3, 4)
    const remote = await serve(TextWorld.factory(settings))
    const local = TextWorld.make(settings)
    expect(remote.spec).toEqual(local.spec)
    for (const seed of [1, 2, 3, 4]) {
      const expert = right(await _.play()(Expert.fromEnv(TextWorld.expertAction))(local, seed)())
      expect(expert.won).toBe(true)
      const replayed = right(await _.play()(Expert.fromActions(expert.turns.map((t) => t.action)))(remote, seed)())
      expect(replayed).toEqual(expert)
      expect(right(await _.play()(wanderer)(remote, seed)())).toEqual(right(await _.play()(wanderer)(local, seed)()))
    }
    await remote.close()()
  })

  it('ALFWorld: the expert, replayed over HTTP, and a wandering agent give the same transcripts', async () => {
    const settings: AlfWorld.Settings = { split: 'valid-unseen', maxTurns: 30 }
    const remote = await serve(AlfWorld.factory(settings))
    const local = AlfWorld.make(settings)
    expect(remote.spec).toEqual(local.spec)
    const expertAction = (env: AlfWorld.AlfWorldEnv): O.Option<string> => O.chain(AlfExpert.next)(env.state())
    for (const seed of [10, 11, 12]) {
      const expert = right(await _.play()(Expert.fromEnv(expertAction))(local, seed)())
      expect(expert.won).toBe(true)
      const replayed = right(await _.play()(Expert.fromActions(expert.turns.map((t) => t.action)))(remote, seed)())
      expect(replayed).toEqual(expert)
      expect(right(await _.play({ maxTurns: 10 })(wanderer)(remote, seed)())).toEqual(right(await _.play({ maxTurns: 10 })(wanderer)(local, seed)()))
    }
    await remote.close()()
  })
})

describe('Episode.playSeeds', () => {
  it('plays every seed on its own fresh environment, closes each, and keeps the failures apart', async () => {
    let made = 0
    let closed = 0
    const settings = Settings.custom(2, 3, 4)
    const source: Env.EnvSource = {
      name: 'textworld',
      maxTurns: 5,
      make: () => {
        made += 1
        const env = TextWorld.make(settings)
        return { ...env, close: () => async () => void (closed += 1) }
      },
      dispose: () => undefined
    }
    const agent: _.Agent = async (history) => {
      if (history.seed === 2) throw new Error('model down')
      return wanderer(history)
    }
    const { played, failed } = await _.playSeeds({ maxTurns: 5 })(agent)(source, [1, 2, 3])()
    expect(played.map((e) => e.seed)).toEqual([1, 3])
    expect(played.every((e) => e.turns.length > 0 && e.turns.length <= 5)).toBe(true)
    expect(failed).toEqual([{ _tag: 'AgentFailed', env: played[0]!.env, seed: 2, turn: 0, reason: 'model down' }])
    expect([made, closed]).toEqual([3, 3])
    // the same episodes as playing each seed alone
    const alone = right(await _.play({ maxTurns: 5 })(wanderer)(TextWorld.make(settings), 3)())
    expect(played[1]!.turns.map((t) => t.action)).toEqual(alone.turns.map((t) => t.action))
  })
})
