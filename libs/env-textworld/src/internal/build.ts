/** Assembles a Game record from its parts and computes the initial state. */
import { holds, indexNames, POS, SCORED, type Entity, type Game, type Quest, type Room } from '../Game.js'

/** Position code of containers, supporters and doors (they never move). */
export const FIXED = -3

export interface Parts {
  readonly setting: string
  readonly seed: number
  readonly rooms: ReadonlyArray<Room>
  readonly exits: Int16Array
  readonly doors: Int16Array
  readonly entities: ReadonlyArray<Entity>
  /** Positions of items (anything for fixed entities). */
  readonly pos: ReadonlyArray<number>
  readonly status: ReadonlyArray<number>
  readonly player: number
  readonly quest: Quest
  readonly objective: string
}

export const build = (parts: Parts): Game => {
  const n = parts.entities.length
  const initial = new Int32Array(POS + 2 * n)
  initial[0] = parts.player
  parts.entities.forEach((e, i) => {
    initial[POS + i] = e.kind === 'item' ? parts.pos[i]! : FIXED
    initial[POS + n + i] = e.kind === 'door' || e.kind === 'container' ? parts.status[i]! : 0
  })
  const game: Game = {
    setting: parts.setting,
    seed: parts.seed,
    rooms: parts.rooms,
    exits: parts.exits,
    doors: parts.doors,
    entities: parts.entities,
    initial,
    quest: parts.quest,
    objective: parts.objective,
    byName: indexNames(parts.entities)
  }
  let mask = 0
  parts.quest.subgoals.forEach((fact, i) => {
    if (holds(game, initial, fact)) mask |= 1 << i
  })
  initial[SCORED] = mask
  return game
}
