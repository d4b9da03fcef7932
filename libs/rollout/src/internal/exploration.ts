/**
 * Exploration moves (`Options.exploreRate`): an admissible action in place of the policy's
 * sample. With probability `exploreRate`, drawn from the slot's stream, a slot whose environment
 * lists admissible actions plays one of them, drawn uniformly; its tokens enter the context as if
 * the policy had written them, if they fit.
 */
import type { Rng } from '@mtrl/core'
import type { RolloutState } from './rolloutState.js'

/** A slot's exploration move: the action and its tokens. */
export interface Move {
  readonly slot: number
  readonly action: string
  readonly tokens: Int32Array
}

/**
 * The admissible action a slot explores this turn, if it explores. Draws from `rng` only when
 * `exploreRate` is positive and admissible actions are listed (then one draw, and one more when
 * it explores).
 */
export const actionToExplore = (exploreRate: number, rng: Rng.Rng, admissible: ReadonlyArray<string> | undefined): string | undefined => {
  if (!(exploreRate > 0) || admissible === undefined || admissible.length === 0 || rng.next() >= exploreRate) return undefined
  return admissible[rng.int(admissible.length)]!
}

/** The exploration moves of this turn's `active` slots, in slot order of `active`. */
export const explorationMoves = (state: RolloutState, active: ReadonlyArray<number>): Move[] => {
  const exploreRate = state.options.exploreRate ?? 0
  const { session, contextLength } = state.generator
  const moves: Move[] = []
  for (const slot of active) {
    const action = actionToExplore(exploreRate, state.rngs[slot]!, state.open.get(slot)!.admissible)
    if (action === undefined) continue
    const tokens = state.moveTokens(action)
    if (session.length(slot) + tokens.length <= contextLength) moves.push({ slot, action, tokens })
  }
  return moves
}
