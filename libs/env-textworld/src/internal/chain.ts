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

/** One way to undo an action, and how likely it is drawn. */
interface Candidate {
  readonly weight: number
  readonly run: () => void
}

/** Draws an index with probability proportional to the candidates' weights. */
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

/** The mutable record of one chaining attempt. */
interface Chaining {
  readonly rng: Rng.Rng
  readonly layout: Layout
  readonly doorOn: Int16Array
  /** The wanted number of objects (new holders are likelier below it). */
  readonly objects: number
  readonly d: Draft
  /** Backward order. */
  readonly steps: Step[]
  readonly traversed: Set<number>
  /** Holders the quest uses (their closing may be undone). */
  readonly used: Set<number>
  /** The goal item, and the holder it goes to (-1 when it is eaten). */
  readonly x: number
  readonly target: number
  /** Rooms visited since the last action that was not a walk: walks never revisit one. */
  since: Set<number>
}

/** A fresh copy of a draft. */
const copyDraft = (base: Draft): Draft => ({
  kind: base.kind.slice(),
  room: base.room.slice(),
  between: base.between.slice(),
  key: base.key.slice(),
  isKey: base.isKey.slice(),
  edible: base.edible.slice(),
  pos: base.pos.slice(),
  status: base.status.slice(),
  player: 0
})

/**
 * Draws the goal (put on a new supporter, insert into a new container, or eat) and creates
 * its item, in hand, and its holder, in the player's room; records the final step.
 */
const drawGoal = (rng: Rng.Rng, d: Draft, steps: Step[], used: Set<number>): { readonly goal: Fact; readonly x: number } => {
  const u = rng.next()
  const tag = u < 0.45 ? 'put' : u < 0.9 ? 'insert' : 'eat'
  const x = add(d, 'item', { edible: tag === 'eat' || rng.next() < 0.25, pos: CARRIED })
  if (tag === 'eat') {
    steps.push({ tag: 'eat', item: x })
    return { goal: { _tag: 'Eaten', item: x }, x }
  }
  const holder = add(d, tag === 'put' ? 'supporter' : 'container', { room: d.player, status: OPEN })
  if (tag === 'insert') used.add(holder)
  steps.push({ tag, item: x, holder })
  return { goal: { _tag: 'Placed', item: x, holder }, x }
}

/** The items in the player's hands. */
const heldItems = (d: Draft): number[] => {
  const held: number[] = []
  for (let e = 0; e < d.kind.length; e++) if (d.kind[e] === 'item' && d.pos[e] === CARRIED) held.push(e)
  return held
}

/** Whether door or container `e` can be acted on from room `p`. */
const isHere = (d: Draft, e: number, p: number): boolean =>
  d.kind[e] === 'door' ? d.between[e]![0] === p || d.between[e]![1] === p : d.kind[e] === 'container' && d.room[e] === p

/**
 * Undoing the take of held item `y`: it was on the floor, on a supporter or in an open
 * container of the room (not the goal's target), or on a new holder. The spot is drawn now.
 */
const untake = (c: Chaining, y: number, p: number): Candidate => {
  const { d, steps, used } = c
  const R = c.layout.xy.length
  const fresh = (): number => (objectCount(d) < c.objects ? 1 : 0.15)
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
    if (d.room[h] !== p || h === (y === c.x ? c.target : -1)) continue
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
  const spot = spots[pickIndex(c.rng, spots)]!
  return { weight: 1.2, run: spot.run }
}

/** Undoing a walk into room `p`: from a neighbour not visited since, through an open door or none. */
const unwalks = (c: Chaining, p: number): Candidate[] => {
  const { d } = c
  const cands: Candidate[] = []
  for (let dir = 0; dir < 4; dir++) {
    const n = c.layout.exits[4 * p + dir]!
    const door = c.doorOn[4 * p + dir]!
    if (n < 0 || c.since.has(n) || (door >= 0 && d.status[door] !== OPEN)) continue
    cands.push({
      weight: 1,
      run: () => {
        d.player = n
        if (door >= 0) c.traversed.add(door)
        c.steps.push({ tag: 'go', dir: opposite(dir) })
        c.since.add(n)
      }
    })
  }
  return cands
}

/** Undoing the opening of an open door or container here that the quest goes through or uses. */
const unopens = (c: Chaining, p: number): Candidate[] => {
  const { d } = c
  const cands: Candidate[] = []
  for (let e = 0; e < d.kind.length; e++) {
    if (!isHere(d, e, p) || d.status[e] !== OPEN || !(c.traversed.has(e) || c.used.has(e))) continue
    cands.push({
      weight: 2,
      run: () => {
        d.status[e] = CLOSED
        c.steps.push({ tag: 'open', target: e })
      }
    })
  }
  return cands
}

/** Undoing the unlocking of a closed door or container here without a key: a new key, in hand. */
const unlocks = (c: Chaining, p: number): Candidate[] => {
  const { d } = c
  const cands: Candidate[] = []
  for (let e = 0; e < d.kind.length; e++) {
    if (!isHere(d, e, p) || d.status[e] !== CLOSED || d.key[e]! >= 0) continue
    cands.push({
      weight: 1.5,
      run: () => {
        const k = add(d, 'item', { isKey: true, pos: CARRIED })
        d.key[e] = k
        d.status[e] = LOCKED
        c.steps.push({ tag: 'unlock', target: e, key: k })
      }
    })
  }
  return cands
}

/**
 * Undoes one action, with `remaining` actions left to undo (the last ones must empty the
 * hands, one take per held item). False when stuck.
 */
const undoOne = (c: Chaining, remaining: number): boolean => {
  const p = c.d.player
  const held = heldItems(c.d)
  if (held.length > remaining) return false
  const cands: Candidate[] = held.map((y) => untake(c, y, p))
  if (held.length <= remaining - 1) cands.push(...unwalks(c, p), ...unopens(c, p))
  if (held.length + 1 <= remaining - 1) cands.push(...unlocks(c, p))
  if (cands.length === 0) return false
  const before = c.d.player
  cands[pickIndex(c.rng, cands)]!.run()
  if (c.d.player === before) c.since = new Set([c.d.player])
  return true
}

/**
 * One chaining attempt on a fresh copy of `base` (a draft holding the doors only, all open).
 * Returns undefined when the chain gets stuck.
 */
export const backward = (rng: Rng.Rng, layout: Layout, doorOn: Int16Array, base: Draft, length: number, objects: number): Chain | undefined => {
  const d = copyDraft(base)
  const steps: Step[] = []
  const used = new Set<number>()
  d.player = rng.int(layout.xy.length)
  const since = new Set<number>([d.player])
  const { goal, x } = drawGoal(rng, d, steps, used)
  const target = goal._tag === 'Placed' ? goal.holder : -1
  const c: Chaining = { rng, layout, doorOn, objects, d, steps, traversed: new Set<number>(), used, x, target, since }
  for (let remaining = length - 1; remaining > 0; remaining--) if (!undoOne(c, remaining)) return undefined
  // A one-action quest starts with the item in hand (as TextWorld's length-1 quests); longer ones with empty hands.
  if (length > 1 && heldItems(d).length > 0) return undefined
  return { draft: d, steps: steps.reverse(), goal, traversed: c.traversed }
}
