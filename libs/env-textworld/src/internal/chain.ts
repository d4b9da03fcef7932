/**
 * Backward chaining of a quest, as TextWorld's `make_quest`: start from a goal state (an item
 * put on a supporter, inserted into a container, or eaten) and repeatedly undo one action
 * whose effect the rest of the quest needs, creating entities on the way (a key when a door
 * or container becomes locked, a holder when an item must have been somewhere), until the
 * chain has exactly `length` actions and the player's hands are empty.
 *
 * Every undo yields a valid predecessor state, so the chain read forwards is a winning plan.
 * Walks between two non-move actions never revisit a room, which keeps most chains optimal;
 * the generator checks optimality exactly and redraws otherwise.
 */
import { Rng } from '@mtrl/core'
import { CARRIED, CLOSED, LOCKED, OPEN, type EntityKind, type Fact } from '../Game.js'
import { opposite, type Layout } from './layout.js'

export interface Draft {
  readonly kind: EntityKind[]
  readonly room: number[]
  readonly between: Array<readonly [number, number] | undefined>
  readonly key: number[]
  readonly isKey: boolean[]
  readonly edible: boolean[]
  readonly pos: number[]
  readonly status: number[]
  player: number
}

export type Step =
  | { readonly tag: 'go'; readonly dir: number }
  | { readonly tag: 'take'; readonly item: number; readonly from: number }
  | { readonly tag: 'open'; readonly target: number }
  | { readonly tag: 'unlock'; readonly target: number; readonly key: number }
  | { readonly tag: 'put' | 'insert'; readonly item: number; readonly holder: number }
  | { readonly tag: 'eat'; readonly item: number }

export interface Chain {
  readonly draft: Draft
  /** Forward order. */
  readonly steps: ReadonlyArray<Step>
  readonly goal: Fact
  /** Doors the quest walks through. */
  readonly traversed: ReadonlySet<number>
}

export const add = (
  d: Draft,
  kind: EntityKind,
  props: { room?: number; between?: readonly [number, number]; isKey?: boolean; edible?: boolean; pos?: number; status?: number }
): number => {
  d.kind.push(kind)
  d.room.push(props.room ?? -1)
  d.between.push(props.between)
  d.key.push(-1)
  d.isKey.push(props.isKey ?? false)
  d.edible.push(props.edible ?? false)
  d.pos.push(props.pos ?? -1)
  d.status.push(props.status ?? OPEN)
  return d.kind.length - 1
}

/** Number of objects in TextWorld's sense: everything but rooms and doors. */
export const objectCount = (d: Draft): number => d.kind.reduce((n, k) => (k === 'door' ? n : n + 1), 0)

interface Candidate {
  readonly weight: number
  readonly run: () => void
}

/**
 * One chaining attempt on a fresh copy of `base` (a draft holding the doors only, all open).
 * Returns undefined when the chain gets stuck.
 */
export const backward = (rng: Rng.Rng, layout: Layout, doorOn: Int16Array, base: Draft, length: number, objects: number): Chain | undefined => {
  const d: Draft = {
    kind: base.kind.slice(),
    room: base.room.slice(),
    between: base.between.slice(),
    key: base.key.slice(),
    isKey: base.isKey.slice(),
    edible: base.edible.slice(),
    pos: base.pos.slice(),
    status: base.status.slice(),
    player: 0
  }
  const R = layout.xy.length
  const steps: Step[] = []
  const traversed = new Set<number>()
  const used = new Set<number>()
  d.player = rng.int(R)
  let since = new Set<number>([d.player])
  const u = rng.next()
  const tag = u < 0.45 ? 'put' : u < 0.9 ? 'insert' : 'eat'
  const x = add(d, 'item', { edible: tag === 'eat' || rng.next() < 0.25, pos: CARRIED })
  let goal: Fact
  if (tag === 'eat') {
    goal = { _tag: 'Eaten', item: x }
    steps.push({ tag: 'eat', item: x })
  } else {
    const holder = add(d, tag === 'put' ? 'supporter' : 'container', { room: d.player, status: OPEN })
    if (tag === 'insert') used.add(holder)
    goal = { _tag: 'Placed', item: x, holder }
    steps.push({ tag, item: x, holder })
  }
  const target = goal._tag === 'Placed' ? goal.holder : -1
  const fresh = (): number => (objectCount(d) < objects ? 1 : 0.15)
  for (let remaining = length - 1; remaining > 0; remaining--) {
    const p = d.player
    const held: number[] = []
    for (let e = 0; e < d.kind.length; e++) if (d.kind[e] === 'item' && d.pos[e] === CARRIED) held.push(e)
    if (held.length > remaining) return undefined
    const cands: Candidate[] = []
    for (const y of held) {
      const spots: Candidate[] = [
        {
          weight: 1,
          run: () => {
            d.pos[y] = p
            steps.push({ tag: 'take', item: y, from: -1 })
          }
        }
      ]
      for (let h = 0; h < d.kind.length; h++) {
        if (d.room[h] !== p || h === (y === x ? target : -1)) continue
        if (d.kind[h] === 'supporter' || (d.kind[h] === 'container' && d.status[h] === OPEN))
          spots.push({
            weight: 1,
            run: () => {
              d.pos[y] = R + h
              used.add(h)
              steps.push({ tag: 'take', item: y, from: h })
            }
          })
      }
      for (const kind of ['supporter', 'container'] as const)
        spots.push({
          weight: fresh(),
          run: () => {
            const h = add(d, kind, { room: p, status: OPEN })
            d.pos[y] = R + h
            used.add(h)
            steps.push({ tag: 'take', item: y, from: h })
          }
        })
      const spot = spots[pickIndex(rng, spots)]!
      cands.push({ weight: 1.2, run: spot.run })
    }
    if (held.length <= remaining - 1) {
      for (let dir = 0; dir < 4; dir++) {
        const n = layout.exits[4 * p + dir]!
        const door = doorOn[4 * p + dir]!
        if (n < 0 || since.has(n) || (door >= 0 && d.status[door] !== OPEN)) continue
        cands.push({
          weight: 1,
          run: () => {
            d.player = n
            if (door >= 0) traversed.add(door)
            steps.push({ tag: 'go', dir: opposite(dir) })
            since.add(n)
          }
        })
      }
      for (let e = 0; e < d.kind.length; e++) {
        const here = d.kind[e] === 'door' ? d.between[e]![0] === p || d.between[e]![1] === p : d.kind[e] === 'container' && d.room[e] === p
        if (!here || d.status[e] !== OPEN || !(traversed.has(e) || used.has(e))) continue
        cands.push({
          weight: 2,
          run: () => {
            d.status[e] = CLOSED
            steps.push({ tag: 'open', target: e })
          }
        })
      }
    }
    if (held.length + 1 <= remaining - 1) {
      for (let e = 0; e < d.kind.length; e++) {
        const here = d.kind[e] === 'door' ? d.between[e]![0] === p || d.between[e]![1] === p : d.kind[e] === 'container' && d.room[e] === p
        if (!here || d.status[e] !== CLOSED || d.key[e]! >= 0) continue
        cands.push({
          weight: 1.5,
          run: () => {
            const k = add(d, 'item', { isKey: true, pos: CARRIED })
            d.key[e] = k
            d.status[e] = LOCKED
            steps.push({ tag: 'unlock', target: e, key: k })
          }
        })
      }
    }
    if (cands.length === 0) return undefined
    const before = d.player
    cands[pickIndex(rng, cands)]!.run()
    if (d.player === before) since = new Set([d.player])
  }
  // A one-action quest starts with the item in hand (as TextWorld's length-1 quests); longer ones with empty hands.
  if (length > 1) for (let e = 0; e < d.kind.length; e++) if (d.kind[e] === 'item' && d.pos[e] === CARRIED) return undefined
  return { draft: d, steps: steps.reverse(), goal, traversed }
}

export const pickIndex = (rng: Rng.Rng, cands: ReadonlyArray<{ readonly weight: number }>): number => {
  let total = 0
  for (const c of cands) total += c.weight
  let r = rng.next() * total
  for (let i = 0; i < cands.length; i++) {
    r -= cands[i]!.weight
    if (r < 0) return i
  }
  return cands.length - 1
}
