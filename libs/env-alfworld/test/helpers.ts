/** Shared arbitraries for this lib's tests: games and states reached by random admissible walks. */
import { Arbitraries } from '@mtrl/testing'
import fc from 'fast-check'
import * as Game from '../src/Game.js'
import * as Scene from '../src/Scene.js'
import { splits } from '../src/Split.js'
import { taskTypes, type TaskType } from '../src/Task.js'

/** Walks `picks.length` random admissible commands (stopping early on a win). */
export const walk = (state: Game.State, picks: ReadonlyArray<number>): Game.State => {
  let s = state
  for (const p of picks) {
    if (Game.won(s)) break
    const options = Game.admissible(s)
    s = Game.step(options[p % options.length]!)(s).state
  }
  return s
}

export const game = (types: ReadonlyArray<TaskType> = taskTypes): fc.Arbitrary<Scene.Game> =>
  fc.tuple(Arbitraries.seed, fc.constantFrom(...splits), fc.constantFrom(...types)).map(([seed, split, type]) => Scene.generate(split, [type])(seed))

/** A state reached from the start of a random game by up to `maxSteps` random admissible commands. */
export const reachable = (types: ReadonlyArray<TaskType> = taskTypes, maxSteps = 30): fc.Arbitrary<Game.State> =>
  fc.tuple(game(types), fc.array(fc.nat(), { maxLength: maxSteps })).map(([g, picks]) => walk(Game.start(g), picks))
