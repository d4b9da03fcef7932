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
import { CARRIED, DIRECTIONS, EATEN, LOCKED, OPEN, OUTCOME, PLAYER, POS, type Game, type State } from './Game.js'

type Move =
  | { readonly kind: 'go'; readonly from: number; readonly to: number; readonly door: number; readonly cmd: string }
  | { readonly kind: 'open' | 'unlock'; readonly rooms: number; readonly lock: number; readonly key: number; readonly cmd: string }
  | { readonly kind: 'take'; readonly room: number; readonly item: number; readonly holder: number; readonly cmd: string }
  | { readonly kind: 'final'; readonly room: number; readonly item: number; readonly holder: number; readonly cmd: string }

const digit = (key: number, mult: number, radix: number): number => Math.floor(key / mult) % radix

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
    interest[state[PLAYER]!] = 1
    addItem(goal.item)
    if (goal._tag === 'Placed') {
      interest[ents[goal.holder]!.room] = 1
      if (ents[goal.holder]!.kind === 'container') addLock(goal.holder)
    }
    // Steiner tree of the rooms of interest; its closed doors (and their keys) join the closure.
    const inTree = new Uint8Array(R)
    for (let changed = true; changed && solvable;) {
      inTree.fill(1)
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
      const before = items.length + locks.length
      for (let r = 0; r < R; r++)
        for (let d = 0; d < 4; d++) {
          const n = game.exits[4 * r + d]!
          const door = game.doors[4 * r + d]!
          if (n >= 0 && door >= 0 && inTree[r] === 1 && inTree[n] === 1) addLock(door)
        }
      changed = items.length + locks.length !== before
    }
    if (!solvable) return O.none
    // Variables: local room, then one binary digit per item (1 = carried), one ternary digit per lock.
    const local = new Int32Array(R).fill(-1)
    let nr = 0
    for (let r = 0; r < R; r++) if (inTree[r] === 1) local[r] = nr++
    const itemMult = items.map((_, i) => nr * 2 ** i)
    const lockBase = nr * 2 ** items.length
    const lockMult = locks.map((_, j) => lockBase * 3 ** j)
    const itemIndex = new Map(items.map((y, i) => [y, i]))
    const lockIndex = new Map(locks.map((c, j) => [c, j]))
    const roomBit = (r: number): number => 1 << local[r]!
    const moves: Move[] = []
    for (let r = 0; r < R; r++)
      for (let d = 0; d < 4; d++) {
        const n = game.exits[4 * r + d]!
        if (n < 0 || inTree[r] === 0 || inTree[n] === 0) continue
        const door = game.doors[4 * r + d]!
        moves.push({ kind: 'go', from: local[r]!, to: local[n]!, door: door >= 0 ? (lockIndex.get(door) ?? -1) : -1, cmd: `go ${DIRECTIONS[d]!}` })
      }
    locks.forEach((c, j) => {
      const e = ents[c]!
      const rooms = e.kind === 'door' ? roomBit(e.between![0]) | roomBit(e.between![1]) : roomBit(e.room)
      moves.push({ kind: 'open', rooms, lock: j, key: -1, cmd: `open ${e.name}` })
      if (state[POS + N + c] === LOCKED)
        moves.push({ kind: 'unlock', rooms, lock: j, key: itemIndex.get(e.key)!, cmd: `unlock ${e.name} with ${ents[e.key]!.name}` })
    })
    items.forEach((y, i) => {
      const p = state[POS + y]!
      if (p === CARRIED) return
      const holder = p >= R ? p - R : -1
      const room = holder >= 0 ? ents[holder]!.room : p
      const cmd = holder >= 0 ? `take ${ents[y]!.name} from ${ents[holder]!.name}` : `take ${ents[y]!.name}`
      moves.push({ kind: 'take', room: local[room]!, item: i, holder: holder >= 0 ? (lockIndex.get(holder) ?? -1) : -1, cmd })
    })
    const x = ents[goal.item]!.name
    const final: Move =
      goal._tag === 'Eaten'
        ? { kind: 'final', room: -1, item: 0, holder: -1, cmd: `eat ${x}` }
        : {
            kind: 'final',
            room: local[ents[goal.holder]!.room]!,
            item: 0,
            holder: lockIndex.get(goal.holder) ?? -1,
            cmd: ents[goal.holder]!.kind === 'supporter' ? `put ${x} on ${ents[goal.holder]!.name}` : `insert ${x} into ${ents[goal.holder]!.name}`
          }
    let start = local[state[PLAYER]!]!
    items.forEach((y, i) => (start += state[POS + y] === CARRIED ? itemMult[i]! : 0))
    locks.forEach((c, j) => (start += state[POS + N + c]! * lockMult[j]!))
    // Breadth-first search.
    const keys: number[] = [start]
    const parent: number[] = [-1]
    const via: number[] = [-1]
    const seen = new Map<number, number>([[start, 0]])
    const finalOk = (key: number): boolean =>
      digit(key, itemMult[0]!, 2) === 1 && (final.room < 0 || key % nr === final.room) && (final.holder < 0 || digit(key, lockMult[final.holder]!, 3) === 0)
    for (let head = 0; head < keys.length; head++) {
      const key = keys[head]!
      if (finalOk(key)) {
        const out: string[] = [final.cmd]
        for (let at = head; parent[at]! >= 0; at = parent[at]!) out.push(moves[via[at]!]!.cmd)
        return O.some(out.reverse())
      }
      const room = key % nr
      for (let m = 0; m < moves.length; m++) {
        const move = moves[m]!
        let next = -1
        switch (move.kind) {
          case 'go':
            if (move.from === room && (move.door < 0 || digit(key, lockMult[move.door]!, 3) === 0)) next = key - room + move.to
            break
          case 'open':
          case 'unlock': {
            if ((move.rooms & (1 << room)) === 0) break
            const s = digit(key, lockMult[move.lock]!, 3)
            if (move.kind === 'open' ? s === 1 : s === 2 && digit(key, itemMult[move.key]!, 2) === 1) next = key - lockMult[move.lock]!
            break
          }
          case 'take':
            if (move.room === room && digit(key, itemMult[move.item]!, 2) === 0 && (move.holder < 0 || digit(key, lockMult[move.holder]!, 3) === 0))
              next = key + itemMult[move.item]!
            break
          case 'final':
            break
        }
        if (next >= 0 && !seen.has(next)) {
          seen.set(next, keys.length)
          keys.push(next)
          parent.push(head)
          via.push(m)
        }
      }
    }
    return O.none
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
