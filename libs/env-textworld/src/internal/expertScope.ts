/**
 * The expert's projection of a state onto what can matter: the goal item, the target, every
 * closed door or container that stands in the way, the keys those need (found by a closure
 * from the current state, so a key hidden in another locked chest is found again), and the
 * Steiner tree of the rooms of interest (the map is a tree, so no shortest plan leaves it).
 */
import { EATEN, LOCKED, OPEN, PLAYER, POS, type Fact, type Game, type State } from '../Game.js'

/** The goals the expert can plan for. */
export type ExpertGoal = Extract<Fact, { readonly _tag: 'Placed' | 'Eaten' }>

/** What the expert's search looks at. */
export interface Scope {
  /** Items that may have to be taken, the goal item first. */
  readonly items: ReadonlyArray<number>
  /** Doors and containers, not open now, that may have to be opened. */
  readonly locks: ReadonlyArray<number>
  /** 1 for the rooms of the Steiner tree of the rooms of interest. */
  readonly inTree: Uint8Array
}

/** The growing closure of relevant items and locks, and the rooms they make interesting. */
interface Closure {
  readonly interest: Uint8Array
  readonly items: ReadonlyArray<number>
  readonly locks: ReadonlyArray<number>
  readonly addItem: (item: number) => void
  readonly addLock: (lock: number) => void
  /** False once something needed is gone (eaten) or cannot be unlocked (no key). */
  readonly solvable: () => boolean
}

/** An empty closure over `state`; adding an item or lock adds what it depends on too. */
const closureOf = (game: Game, state: State): Closure => {
  const ents = game.entities
  const R = game.rooms.length
  const N = ents.length
  const interest = new Uint8Array(R)
  const itemSeen = new Uint8Array(N)
  const lockSeen = new Uint8Array(N)
  const items: number[] = []
  const locks: number[] = []
  let solvable = true
  const addLock = (c: number): void => {
    if (lockSeen[c] === 1 || state[POS + N + c] === OPEN) return
    lockSeen[c] = 1
    locks.push(c)
    if (ents[c]!.kind === 'container') interest[ents[c]!.room] = 1
    if (state[POS + N + c] === LOCKED) {
      if (ents[c]!.key < 0) solvable = false
      else addItem(ents[c]!.key)
    }
  }
  const addItem = (y: number): void => {
    if (itemSeen[y] === 1) return
    itemSeen[y] = 1
    items.push(y)
    const p = state[POS + y]!
    if (p === EATEN) solvable = false
    else if (p >= R) {
      interest[ents[p - R]!.room] = 1
      if (ents[p - R]!.kind === 'container') addLock(p - R)
    } else if (p >= 0) interest[p] = 1
  }
  return { interest, items, locks, addItem, addLock, solvable: () => solvable }
}

/** The rooms of the smallest subtree of the map that holds every room of interest (1 = in it). */
const steinerTree = (game: Game, interest: Uint8Array): Uint8Array => {
  const R = game.rooms.length
  const inTree = new Uint8Array(R).fill(1)
  const degree = new Int32Array(R)
  for (let r = 0; r < R; r++) for (let d = 0; d < 4; d++) if (game.exits[4 * r + d]! >= 0) degree[r]!++
  const leaves: number[] = []
  for (let r = 0; r < R; r++) if (degree[r]! <= 1 && interest[r] === 0) leaves.push(r)
  while (leaves.length > 0) {
    const r = leaves.pop()!
    inTree[r] = 0
    for (let d = 0; d < 4; d++) {
      const n = game.exits[4 * r + d]!
      if (n >= 0 && inTree[n] === 1 && --degree[n]! === 1 && interest[n] === 0) leaves.push(n)
    }
  }
  return inTree
}

/** Adds every door between two rooms of the tree to the closure. */
const addTreeDoors = (game: Game, inTree: Uint8Array, addLock: (lock: number) => void): void => {
  const R = game.rooms.length
  for (let r = 0; r < R; r++)
    for (let d = 0; d < 4; d++) {
      const n = game.exits[4 * r + d]!
      const door = game.doors[4 * r + d]!
      if (n >= 0 && door >= 0 && inTree[r] === 1 && inTree[n] === 1) addLock(door)
    }
}

/**
 * The scope of the expert's search from `state`, or undefined when the goal cannot be reached
 * any more. The tree's closed doors (and their keys) join the closure, which can widen the
 * tree: repeated until nothing changes.
 */
export const scopeOf = (game: Game, state: State, goal: ExpertGoal): Scope | undefined => {
  const ents = game.entities
  const closure = closureOf(game, state)
  closure.interest[state[PLAYER]!] = 1
  closure.addItem(goal.item)
  if (goal._tag === 'Placed') {
    closure.interest[ents[goal.holder]!.room] = 1
    if (ents[goal.holder]!.kind === 'container') closure.addLock(goal.holder)
  }
  let inTree: Uint8Array = new Uint8Array(game.rooms.length)
  for (let changed = true; changed && closure.solvable();) {
    inTree = steinerTree(game, closure.interest)
    const before = closure.items.length + closure.locks.length
    addTreeDoors(game, inTree, closure.addLock)
    changed = closure.items.length + closure.locks.length !== before
  }
  return closure.solvable() ? { items: closure.items, locks: closure.locks, inTree } : undefined
}
