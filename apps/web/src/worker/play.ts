/**
 * A game in the Play panel: the human or the agent makes each move. The agent's context is the
 * rollout's own layout (system message, goal and first observation, then reply and observation
 * tokens appended turn by turn), so a move taken over by the human enters it as the agent's
 * reply would, and the agent plays on from there. The agent plays greedily.
 */
import { EnvError, Rng, type Env } from '@mtrl/core'
import { Sampler, type Agent } from '@mtrl/policy'
import { EnvConfig } from '@mtrl/recipe'
import { ActionFormat, Layout } from '@mtrl/rollout'
import * as E from 'fp-ts/lib/Either.js'
import type { GameState, Move } from './protocol.js'

/** How the agent reads and writes: the run's rollout settings. */
export interface Style {
  readonly systemPrompt: string
  readonly actionFormat: ActionFormat.ActionFormat
  readonly maxNewTokens: number
}

/** A game being played. */
export interface Game {
  readonly state: () => GameState
  /** The human's move (`command`) or, without one, the agent's. */
  readonly move: (command?: string) => Promise<E.Either<string, GameState>>
  readonly close: () => Promise<void>
}

interface Playing {
  moves: Move[]
  done: boolean
  won: boolean
  score: number
  maxScore: number
  admissible: ReadonlyArray<string>
  /** The agent's context no longer has room for a reply and the next observation. */
  full: boolean
}

/** Starts `config`'s game `seed` with `agent` (when there is one) ready to move. */
export const start = async (config: unknown, seed: number, agent: Agent.Agent | undefined, style: Style): Promise<E.Either<string, Game>> => {
  const decoded = EnvConfig.EnvConfig.decode(config)
  if (E.isLeft(decoded)) return E.left('the game: not an environment a recipe names')
  const source = EnvConfig.source(decoded.right)
  const env: Env.Env = source.make()
  const first = await env.reset(seed)()
  if (E.isLeft(first)) return E.left(EnvError.message(first.left))
  const { goal, text, info } = first.right
  const session = agent === undefined ? undefined : Sampler.make(agent.policy, { slots: 1, maxLen: agent.contextLength })
  const stop = new Set(agent?.template.stopTokens ?? [])
  session?.append([0], [agent!.template.prompt(Layout.system(style.systemPrompt, style.actionFormat), Layout.firstUser(goal, text))])
  const p: Playing = { moves: [], done: false, won: false, score: info.score, maxScore: info.maxScore, admissible: info.admissibleActions ?? [], full: false }
  const state = (): GameState => ({
    env: source.name,
    seed,
    goal,
    start: text,
    moves: p.moves,
    done: p.done,
    won: p.won,
    score: p.score,
    maxScore: p.maxScore,
    turnsLeft: Math.max(0, source.maxTurns - p.moves.length),
    admissible: p.admissible
  })
  const agentCommand = (): string => {
    const generation = session!.generate([0], {
      maxNewTokens: style.maxNewTokens,
      temperature: 0,
      stopTokens: agent!.template.stopTokens,
      rng: Rng.make(seed)
    })[0]!
    const last = generation.tokens[generation.tokens.length - 1]
    const body = generation.stopped && last !== undefined && stop.has(last) ? generation.tokens.subarray(0, -1) : generation.tokens
    return ActionFormat.parse(style.actionFormat)(agent!.tokenizer.decode(body)).action
  }
  const move = async (command?: string): Promise<E.Either<string, GameState>> => {
    if (p.done || p.moves.length >= source.maxTurns) return E.left('the game is over')
    if (command === undefined && (session === undefined || p.full))
      return E.left(session === undefined ? 'no agent yet: train or load one' : "the agent's context is full")
    const by = command === undefined ? 'agent' : 'human'
    const action = command ?? agentCommand()
    if (by === 'human' && session !== undefined && !p.full)
      session.append([0], [Layout.replyTokens(agent!.template, agent!.tokenizer)(Layout.reply(style.actionFormat, action))])
    const stepped = await env.step(action)()
    if (E.isLeft(stepped)) return E.left(EnvError.message(stepped.left))
    const r = stepped.right
    p.moves = [...p.moves, { by, command: action, observation: r.observation, reward: r.reward, valid: r.info.valid }]
    // the game ends when the environment says so or its turn budget is spent (as in a rollout)
    p.done = r.done || p.moves.length >= source.maxTurns
    p.won = r.won
    p.score = r.info.score
    p.maxScore = r.info.maxScore
    p.admissible = r.info.admissibleActions ?? []
    if (session !== undefined && !p.done && !p.full) {
      const observation = agent!.template.observation(r.observation)
      if (session.length(0) + observation.length + style.maxNewTokens > agent!.contextLength) p.full = true
      else session.append([0], [observation])
    }
    return E.right(state())
  }
  const close = async (): Promise<void> => {
    session?.dispose()
    await env.close()()
    source.dispose()
  }
  return E.right({ state, move, close })
}
