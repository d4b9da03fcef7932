/**
 * The expert's search space: a state of the scope encoded as one number (the local room, then
 * one binary digit per item, 1 = carried, then one ternary digit per lock, its status), and the
 * moves that can change it. Closing, locking, dropping and moving other things never shortens
 * a plan (there is no capacity limit), so the only moves are take, open, unlock, go and the
 * final command.
 */
import { CARRIED, DIRECTIONS, LOCKED, PLAYER, POS, type Game, type State } from '../Game.js'
import type { ExpertGoal, Scope } from './expertScope.js'

/** One command of the search, with what it needs (indices are local: room, item, lock digits). */
export type Move =
  | { readonly kind: 'go'; readonly from: number; readonly to: number; readonly door: number; readonly cmd: string }
  | { readonly kind: 'open' | 'unlock'; readonly rooms: number; readonly lock: number; readonly key: number; readonly cmd: string }
  | { readonly kind: 'take'; readonly room: number; readonly item: number; readonly holder: number; readonly cmd: string }
  | { readonly kind: 'final'; readonly room: number; readonly item: number; readonly holder: number; readonly cmd: string }

/** The command that wins. */
export type FinalMove = Extract<Move, { readonly kind: 'final' }>

/** How a scope's state is encoded as one number. */
export interface Encoding {
  /** The number of rooms in the tree (the radix of the room digit). */
  readonly nr: number
  /** Game room -> local room (-1 outside the tree). */
  readonly local: Int32Array
  /** Place value of each item's digit. */
  readonly itemMult: ReadonlyArray<number>
  /** Place value of each lock's digit. */
  readonly lockMult: ReadonlyArray<number>
  /** Item entity -> its digit. */
  readonly itemIndex: ReadonlyMap<number, number>
  /** Lock entity -> its digit. */
  readonly lockIndex: ReadonlyMap<number, number>
}

/** The encoding of a scope. */
export const encodingOf = (game: Game, scope: Scope): Encoding => {
  const R = game.rooms.length
  const local = new Int32Array(R).fill(-1)
  let nr = 0
  for (let r = 0; r < R; r++) if (scope.inTree[r] === 1) local[r] = nr++
  const lockBase = nr * 2 ** scope.items.length
  return {
    nr,
    local,
    itemMult: scope.items.map((_, i) => nr * 2 ** i),
    lockMult: scope.locks.map((_, j) => lockBase * 3 ** j),
    itemIndex: new Map(scope.items.map((y, i) => [y, i])),
    lockIndex: new Map(scope.locks.map((c, j) => [c, j]))
  }
}

/** Walks between rooms of the tree. */
const goMoves = (game: Game, scope: Scope, encoding: Encoding): Move[] => {
  const { local, lockIndex } = encoding
  const moves: Move[] = []
  for (let r = 0; r < game.rooms.length; r++)
    for (let d = 0; d < 4; d++) {
      const n = game.exits[4 * r + d]!
      if (n < 0 || scope.inTree[r] === 0 || scope.inTree[n] === 0) continue
      const door = game.doors[4 * r + d]!
      moves.push({ kind: 'go', from: local[r]!, to: local[n]!, door: door >= 0 ? (lockIndex.get(door) ?? -1) : -1, cmd: `go ${DIRECTIONS[d]!}` })
    }
  return moves
}

/** Opening every lock of the scope, and unlocking those locked now. */
const lockMoves = (game: Game, state: State, scope: Scope, encoding: Encoding): Move[] => {
  const ents = game.entities
  const roomBit = (r: number): number => 1 << encoding.local[r]!
  const moves: Move[] = []
  scope.locks.forEach((c, j) => {
    const e = ents[c]!
    const rooms = e.kind === 'door' ? roomBit(e.between![0]) | roomBit(e.between![1]) : roomBit(e.room)
    moves.push({ kind: 'open', rooms, lock: j, key: -1, cmd: `open ${e.name}` })
    if (state[POS + ents.length + c] === LOCKED)
      moves.push({ kind: 'unlock', rooms, lock: j, key: encoding.itemIndex.get(e.key)!, cmd: `unlock ${e.name} with ${ents[e.key]!.name}` })
  })
  return moves
}

/** Taking every item of the scope not carried now, from where it lies. */
const takeMoves = (game: Game, state: State, scope: Scope, encoding: Encoding): Move[] => {
  const ents = game.entities
  const R = game.rooms.length
  const moves: Move[] = []
  scope.items.forEach((y, i) => {
    const p = state[POS + y]!
    if (p === CARRIED) return
    const holder = p >= R ? p - R : -1
    const room = holder >= 0 ? ents[holder]!.room : p
    const cmd = holder >= 0 ? `take ${ents[y]!.name} from ${ents[holder]!.name}` : `take ${ents[y]!.name}`
    moves.push({ kind: 'take', room: encoding.local[room]!, item: i, holder: holder >= 0 ? (encoding.lockIndex.get(holder) ?? -1) : -1, cmd })
  })
  return moves
}

/** Every move but the final one, in the search's order: walks, locks, takes. */
export const movesOf = (game: Game, state: State, scope: Scope, encoding: Encoding): ReadonlyArray<Move> => [
  ...goMoves(game, scope, encoding),
  ...lockMoves(game, state, scope, encoding),
  ...takeMoves(game, state, scope, encoding)
]

/** The command that wins: eat the goal item, or put (insert) it on (into) the target. */
export const finalMoveOf = (game: Game, goal: ExpertGoal, encoding: Encoding): FinalMove => {
  const ents = game.entities
  const x = ents[goal.item]!.name
  if (goal._tag === 'Eaten') return { kind: 'final', room: -1, item: 0, holder: -1, cmd: `eat ${x}` }
  const holder = ents[goal.holder]!
  return {
    kind: 'final',
    room: encoding.local[holder.room]!,
    item: 0,
    holder: encoding.lockIndex.get(goal.holder) ?? -1,
    cmd: holder.kind === 'supporter' ? `put ${x} on ${holder.name}` : `insert ${x} into ${holder.name}`
  }
}

/** The encoding of `state` itself. */
export const startKeyOf = (game: Game, state: State, scope: Scope, encoding: Encoding): number => {
  const N = game.entities.length
  let start = encoding.local[state[PLAYER]!]!
  scope.items.forEach((y, i) => (start += state[POS + y] === CARRIED ? encoding.itemMult[i]! : 0))
  scope.locks.forEach((c, j) => (start += state[POS + N + c]! * encoding.lockMult[j]!))
  return start
}
