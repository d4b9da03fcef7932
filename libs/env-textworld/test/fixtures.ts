/** Shared helpers of the tests: games per setting, random reachable states, an independent BFS. */
import { Rng } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { OUTCOME, SCORED, type Game, type State } from '../src/Game.js'
import * as Rules from '../src/Rules.js'
import * as Settings from '../src/Settings.js'
import { gameFor } from '../src/TextWorld.js'

export const customSettings = ['w2-o3-q4', 'w4-o6-q8', 'w8-o12-q4'] as const
export const cookingSettings = ['tw-simple-sparse-detailed', 'tw-simple-balanced-brief', 'tw-simple-dense-none-test'] as const

export const settingsOf = (name: string): Settings.Settings =>
  E.getOrElse<string, Settings.Settings>((e) => {
    throw new Error(e)
  })(Settings.parse(name))

export const gameOf = (name: string, seed: number): Game =>
  E.getOrElse<string, Game>((e) => {
    throw new Error(e)
  })(gameFor(settingsOf(name))(seed))

/** Plays commands; returns the last outcome. */
export const replay = (game: Game, state: State, commands: ReadonlyArray<string>): Rules.Outcome => {
  let out: Rules.Outcome = { state, feedback: '', valid: true, reward: 0, won: false, lost: false }
  for (const c of commands) {
    out = Rules.step(game)(out.state, c)
    if (!out.valid) throw new Error(`replay: "${c}" is invalid: ${out.feedback}`)
  }
  return out
}

/** A state reached by `steps` random admissible commands that do not end the episode. */
export const randomState = (game: Game, seed: number, steps: number): State => {
  const rng = Rng.make(seed)
  let state = game.initial
  for (let i = 0; i < steps; i++) {
    const actions = Rng.shuffle(rng)(Rules.admissible(game, state))
    const next = actions.map((a) => Rules.step(game)(state, a)).find((o) => !o.won && !o.lost)
    if (next === undefined) break
    state = next.state
  }
  return state
}

const keyOf = (s: State): string => {
  const c = s.slice()
  c[SCORED] = 0
  return c.join(',')
}

/**
 * Length of a shortest winning sequence of admissible commands from `state` (an exhaustive
 * breadth-first search over the full state, independent of the expert), or undefined if none
 * has at most `maxDepth` commands.
 */
export const bfsShortest = (game: Game, state: State, maxDepth: number): number | undefined => {
  if (state[OUTCOME] === 1) return 0
  let frontier: State[] = [state]
  const seen = new Set<string>([keyOf(state)])
  for (let depth = 1; depth <= maxDepth; depth++) {
    const next: State[] = []
    for (const s of frontier)
      for (const a of Rules.admissible(game, s)) {
        const out = Rules.step(game)(s, a)
        if (out.won) return depth
        if (out.lost || out.state === s) continue
        const k = keyOf(out.state)
        if (!seen.has(k)) {
          seen.add(k)
          next.push(out.state)
        }
      }
    frontier = next
  }
  return undefined
}
