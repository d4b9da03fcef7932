/**
 * The expert: a shortest winning plan from any reachable state, for SFT demonstrations and
 * on-policy corrections (DAgger-style relabelling).
 *
 * It is an exact breadth-first search over a projection of the state onto what can matter:
 * the goal item, the target, every closed door or container that stands in the way, and the
 * keys those need (found by a closure from the current state, so a key the player hid in
 * another locked chest is found again). Rooms are restricted to the Steiner tree of the
 * rooms of interest (the map is a tree, so no shortest plan leaves it). Closing, locking,
 * dropping and moving other things never shortens a plan (there is no capacity limit), so the
 * search only takes, opens, unlocks, walks and finishes: a few hundred states at most.
 *
 * @since 0.1.0
 */
import * as O from 'fp-ts/lib/Option.js'
import { OUTCOME, type Game, type State } from './Game.js'
import { encodingOf, finalMoveOf, movesOf, startKeyOf } from './internal/expertMoves.js'
import { scopeOf } from './internal/expertScope.js'
import { search } from './internal/expertSearch.js'

/**
 * A shortest winning plan from `state` (commands in canonical form), or none when the episode
 * is over or cannot be won any more (the goal food was eaten).
 *
 * @example
 * import { Expert, Generator } from '@mtrl/env-textworld'
 * const game = Generator.generateOrThrow({ rooms: 2, objects: 3, questLength: 4, seed: 7 })
 * Expert.plan(game)(game.initial) // Some([...4 commands])
 *
 * @category destructors
 * @since 0.1.0
 */
export const plan =
  (game: Game) =>
  (state: State): O.Option<ReadonlyArray<string>> => {
    if (state[OUTCOME] !== 0) return O.none
    const goal = game.quest.goal
    if (goal._tag !== 'Placed' && goal._tag !== 'Eaten') throw new Error(`Expert.plan: unsupported goal ${goal._tag}`)
    const scope = scopeOf(game, state, goal)
    if (scope === undefined) return O.none
    const encoding = encodingOf(game, scope)
    return search(encoding, movesOf(game, state, scope, encoding), finalMoveOf(game, goal, encoding), startKeyOf(game, state, scope, encoding))
  }

/**
 * The first action of a shortest winning plan.
 *
 * @category destructors
 * @since 0.1.0
 */
export const nextAction =
  (game: Game) =>
  (state: State): O.Option<string> =>
    O.chain((p: ReadonlyArray<string>) => O.fromNullable(p[0]))(plan(game)(state))

/**
 * How many commands the win is away: the length of the expert's plan from `state`, infinite when
 * it finds none (the game is over or cannot be won from there).
 *
 * @example
 * import { Expert, Generator } from '@mtrl/env-textworld'
 * const game = Generator.generateOrThrow({ rooms: 2, objects: 3, questLength: 4, seed: 7 })
 * Expert.distance(game)(game.initial) // the walkthrough's length
 *
 * @category destructors
 * @since 0.4.0
 */
export const distance =
  (game: Game) =>
  (state: State): number =>
    O.match(
      () => Number.POSITIVE_INFINITY,
      (commands: ReadonlyArray<string>) => commands.length
    )(plan(game)(state))
