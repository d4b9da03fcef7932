/**
 * TextWorld's intermediate reward (`EnvInfos(intermediate_reward=True)` in Microsoft's
 * TextWorld): after each command, +1 when it won the game, -1 when it lost it, otherwise the
 * sign of how much shorter the winning plan became (+1 a step closer, -1 farther, 0 neither:
 * an invalid command, a look, a move the plan does not need). TextWorld measures the plan with
 * its quest's winning policy, here with the expert's (`Expert.distance`). A dense, progress-based
 * signal for every command, including walking and the regressions the score never charges
 * (putting the object back where it came from).
 *
 * @since 0.4.0
 */
import * as Expert from './Expert.js'
import { outcome, type Game, type State } from './Game.js'

/**
 * The reward of the command that led to `state`, given the plan's length before that command
 * (`distanceBefore`: `Expert.distance`, infinite when no plan exists). Answers the reward and the
 * plan's length now, the next command's `distanceBefore`.
 *
 * @example
 * import { Generator, IntermediateReward, Rules } from '@mtrl/env-textworld'
 * const game = Generator.generateOrThrow({ rooms: 2, objects: 3, questLength: 4, seed: 7 })
 * const out = Rules.step(game)(game.initial, game.quest.walkthrough[0]!)
 * IntermediateReward.after(game, game.quest.walkthrough.length)(out.state).reward // 1
 *
 * @category destructors
 * @since 0.4.0
 */
export const after =
  (game: Game, distanceBefore: number) =>
  (state: State): { readonly reward: number; readonly distance: number } => {
    const end = outcome(state)
    if (end === 'won') return { reward: 1, distance: 0 }
    if (end === 'lost') return { reward: -1, distance: Number.POSITIVE_INFINITY }
    const distance = Expert.distance(game)(state)
    if (distance === distanceBefore) return { reward: 0, distance }
    return { reward: distance < distanceBefore ? 1 : -1, distance }
  }
