/**
 * The model of one TextWorld-style game: the static world (rooms on a grid, exits, doors,
 * containers, supporters, portable items, keys), the quest (goal, subgoals, walkthrough) and
 * the dynamic state, a small `Int32Array` so that stepping, hashing and search are cheap.
 *
 * State layout (`N` = number of entities, `R` = number of rooms):
 * - `[0]` player's room; `[1]` outcome (0 playing, 1 won, 2 lost); `[2]` bitmask of subgoals
 *   reached so far (sticky, as TextWorld's quests);
 * - `[3 + e]` position of entity `e` (items only; fixed things keep their room):
 *   `0..R-1` on the floor of that room, `R + h` in or on holder `h`, `-1` carried, `-2` eaten;
 * - `[3 + N + e]` openness of a door or container: 0 open, 1 closed, 2 locked.
 *
 * @since 0.1.0
 */

/** @category models @since 0.1.0 */
export type EntityKind = 'door' | 'container' | 'supporter' | 'item'

/**
 * A thing in the world. `room` is the room of a container or supporter (-1 otherwise);
 * `between` the two rooms of a door; `key` the matching key of a door or container (-1: none).
 *
 * @category models
 * @since 0.1.0
 */
export interface Entity {
  readonly kind: EntityKind
  readonly name: string
  readonly room: number
  readonly between: readonly [number, number] | undefined
  readonly key: number
  readonly isKey: boolean
  readonly edible: boolean
  /** Text shown by `examine`, '' for the default sentence. */
  readonly description: string
}

/** @category models @since 0.1.0 */
export interface Room {
  readonly name: string
  readonly x: number
  readonly y: number
  /** Opening sentence of the room's description. */
  readonly intro: string
}

/**
 * A condition on the state, as TextWorld's facts.
 *
 * @category models
 * @since 0.1.0
 */
export type Fact =
  | { readonly _tag: 'PlayerIn'; readonly room: number }
  | { readonly _tag: 'Held'; readonly item: number }
  | { readonly _tag: 'Placed'; readonly item: number; readonly holder: number }
  | { readonly _tag: 'Open'; readonly entity: number }
  | { readonly _tag: 'Unlocked'; readonly entity: number }
  | { readonly _tag: 'Eaten'; readonly item: number }

/**
 * The quest: `goal` wins, `lose` (if any) loses, each subgoal reached adds 1 to the score.
 * `walkthrough` is one shortest winning plan from the initial state.
 *
 * @category models
 * @since 0.1.0
 */
export interface Quest {
  readonly goal: Fact
  readonly lose: Fact | undefined
  readonly subgoals: ReadonlyArray<Fact>
  readonly walkthrough: ReadonlyArray<string>
}

/** @category models @since 0.1.0 */
export type State = Int32Array

/**
 * A whole game. `exits[4 * room + dir]` is the neighbouring room or -1 and
 * `doors[4 * room + dir]` the door on that exit or -1 (directions: 0 north, 1 south, 2 east,
 * 3 west). The map is a tree.
 *
 * @category models
 * @since 0.1.0
 */
export interface Game {
  /** `w2-o3-q4` or `tw-simple-dense-detailed`. */
  readonly setting: string
  readonly seed: number
  readonly rooms: ReadonlyArray<Room>
  readonly exits: Int16Array
  readonly doors: Int16Array
  readonly entities: ReadonlyArray<Entity>
  readonly initial: State
  readonly quest: Quest
  /** The objective shown at reset ('' when the setting hides it). */
  readonly objective: string
  /** Lower-case name -> entity index. */
  readonly byName: ReadonlyMap<string, number>
}

/** @category constants @since 0.1.0 */
export const PLAYER = 0
/** @category constants @since 0.1.0 */
export const OUTCOME = 1
/** @category constants @since 0.1.0 */
export const SCORED = 2
/** @category constants @since 0.1.0 */
export const POS = 3
/** Position of a carried item. @category constants @since 0.1.0 */
export const CARRIED = -1
/** Position of an eaten item. @category constants @since 0.1.0 */
export const EATEN = -2
/** @category constants @since 0.1.0 */
export const OPEN = 0
/** @category constants @since 0.1.0 */
export const CLOSED = 1
/** @category constants @since 0.1.0 */
export const LOCKED = 2
/** @category constants @since 0.1.0 */
export const DIRECTIONS = ['north', 'south', 'east', 'west'] as const
/** @category models @since 0.1.0 */
export type Direction = (typeof DIRECTIONS)[number]

/** Index of entity `e`'s openness in a state. @category destructors @since 0.1.0 */
export const statusIndex = (game: Game, e: number): number => POS + game.entities.length + e

/** Openness of entity `e`. @category destructors @since 0.1.0 */
export const status = (game: Game, state: State, e: number): number => state[POS + game.entities.length + e]!

/** Position code of entity `e`. @category destructors @since 0.1.0 */
export const position = (state: State, e: number): number => state[POS + e]!

/** Outcome of the episode so far. @category destructors @since 0.1.0 */
export const outcome = (state: State): 'playing' | 'won' | 'lost' => {
  const o = state[OUTCOME]!
  return o === 0 ? 'playing' : o === 1 ? 'won' : 'lost'
}

/** Score: the number of subgoals reached. @category destructors @since 0.1.0 */
export const score = (state: State): number => {
  let mask = state[SCORED]! >>> 0
  let n = 0
  while (mask !== 0) {
    mask &= mask - 1
    n++
  }
  return n
}

/** Maximum score: the number of subgoals. @category destructors @since 0.1.0 */
export const maxScore = (game: Game): number => game.quest.subgoals.length

/**
 * Whether a fact holds in a state.
 *
 * @category destructors
 * @since 0.1.0
 */
export const holds = (game: Game, state: State, fact: Fact): boolean => {
  switch (fact._tag) {
    case 'PlayerIn':
      return state[PLAYER] === fact.room
    case 'Held':
      return state[POS + fact.item] === CARRIED
    case 'Placed':
      return state[POS + fact.item] === game.rooms.length + fact.holder
    case 'Open':
      return status(game, state, fact.entity) === OPEN
    case 'Unlocked':
      return status(game, state, fact.entity) !== LOCKED
    case 'Eaten':
      return state[POS + fact.item] === EATEN
  }
}

/**
 * The room an item is in (-1 when carried or eaten): its floor's room or its holder's room.
 *
 * @category destructors
 * @since 0.1.0
 */
export const roomOf = (game: Game, state: State, item: number): number => {
  const p = state[POS + item]!
  if (p < 0) return -1
  const r = game.rooms.length
  return p < r ? p : game.entities[p - r]!.room
}

/**
 * A key identifying the state (for hashing in searches and equality in tests).
 *
 * @category destructors
 * @since 0.1.0
 */
export const stateKey = (state: State): string => state.join(',')

/**
 * Builds the `byName` index; throws if two entities share a name (a generator bug).
 *
 * @category constructors
 * @since 0.1.0
 */
export const indexNames = (entities: ReadonlyArray<Entity>): ReadonlyMap<string, number> => {
  const byName = new Map<string, number>()
  entities.forEach((e, i) => {
    const name = e.name.toLowerCase()
    if (byName.has(name)) throw new Error(`Game: two entities are named "${e.name}"`)
    byName.set(name, i)
  })
  return byName
}
