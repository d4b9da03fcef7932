/**
 * One episode over the pure game rules: turn counting, the turn budget, sparse or dense
 * reward, and the `StepInfo` the `Env` contract reports. Shared by `AlfWorld.make` (the Env)
 * and `Play` (transcripts), so both score a game the same way.
 */
import type { Env } from '@mtrl/core'
import * as Game from '../Game.js'
import type { Game as GameData } from '../Scene.js'
import { goalText } from '../Task.js'

export interface Rules {
  readonly maxTurns: number
  readonly denseReward: boolean
}

export interface Episode {
  readonly rules: Rules
  readonly state: Game.State
  readonly turn: number
  readonly done: boolean
  readonly won: boolean
}

const scoreOf = (episode: Pick<Episode, 'rules' | 'state' | 'won'>): number => (episode.rules.denseReward ? Game.score(episode.state) : episode.won ? 1 : 0)

const info = (episode: Episode, valid: boolean): Env.StepInfo => {
  const { game } = episode.state
  return {
    valid,
    score: scoreOf(episode),
    maxScore: episode.rules.denseReward ? Game.maxScore(episode.state) : 1,
    admissibleActions: episode.done ? [] : Game.admissible(episode.state),
    extra: {
      taskType: game.task.type,
      split: game.split,
      seed: game.seed,
      room: game.scene.room,
      object: game.task.object,
      target: game.task.target,
      turn: episode.turn,
      truncated: episode.done && !episode.won
    }
  }
}

export const begin = (game: GameData, rules: Rules): { readonly episode: Episode; readonly observation: Env.Observation } => {
  const state = Game.start(game)
  const episode: Episode = { rules, state, turn: 0, done: false, won: false }
  return { episode, observation: { goal: goalText(game.task), text: Game.intro(state), info: info(episode, true) } }
}

/** Plays one turn; the caller must not advance a finished episode. */
export const advance =
  (action: string) =>
  (episode: Episode): { readonly episode: Episode; readonly result: Env.StepResult } => {
    const outcome = Game.step(action)(episode.state)
    const won = Game.won(outcome.state)
    const turn = episode.turn + 1
    const next: Episode = { ...episode, state: outcome.state, turn, won, done: won || turn >= episode.rules.maxTurns }
    return {
      episode: next,
      result: { observation: outcome.feedback, reward: scoreOf(next) - scoreOf(episode), done: next.done, won, info: info(next, outcome.valid) }
    }
  }
