/**
 * Generated TextWorld-style games of tunable complexity, as `tw-make custom --world-size W
 * --nb-objects O --quest-length Q`: W rooms on a grid joined by exits (some through doors
 * that are open, closed or locked), a quest built by backward chaining from its goal, then
 * distractors until there are at least O objects (containers, supporters, items, keys, food).
 *
 * The shortest winning plan has exactly Q actions: each chain is checked with the exact
 * expert search and redrawn (from the same seeded stream) when a shorter plan exists. The same
 * seed always gives the same game.
 *
 * Scoring: every non-move action of the quest establishes a fact that every winning plan must
 * pass through (holding an item, a door or container unlocked or opened, the goal); each is a
 * subgoal worth 1 point. Eating the goal item when it had to be placed loses.
 *
 * @since 0.1.0
 */
import { Rng } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import * as O from 'fp-ts/lib/Option.js'
import * as Expert from './Expert.js'
import { CLOSED, DIRECTIONS, LOCKED, OPEN, type Entity, type Fact, type Game, type Room } from './Game.js'
import { add, backward, objectCount, pickIndex, type Chain, type Draft, type Step } from './internal/chain.js'
import { build } from './internal/build.js'
import { grow, opposite, type Layout } from './internal/layout.js'
import * as Names from './internal/names.js'
import type { ObjectiveDetail } from './Settings.js'
import * as Text from './Text.js'

/**
 * What to generate. `objective` defaults to `steps`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Options {
  readonly rooms: number
  readonly objects: number
  readonly questLength: number
  readonly seed: number
  readonly objective?: ObjectiveDetail
}

const ATTEMPTS = 2000
const UNPLACED = -9

const render = (names: ReadonlyArray<string>, step: Step): string => {
  switch (step.tag) {
    case 'go':
      return `go ${DIRECTIONS[step.dir]!}`
    case 'take':
      return step.from < 0 ? `take ${names[step.item]!}` : `take ${names[step.item]!} from ${names[step.from]!}`
    case 'open':
      return `open ${names[step.target]!}`
    case 'unlock':
      return `unlock ${names[step.target]!} with ${names[step.key]!}`
    case 'put':
      return `put ${names[step.item]!} on ${names[step.holder]!}`
    case 'insert':
      return `insert ${names[step.item]!} into ${names[step.holder]!}`
    case 'eat':
      return `eat ${names[step.item]!}`
  }
}

const subgoalOf = (step: Step, goal: Fact): Fact | undefined => {
  switch (step.tag) {
    case 'go':
      return undefined
    case 'take':
      return { _tag: 'Held', item: step.item }
    case 'open':
      return { _tag: 'Open', entity: step.target }
    case 'unlock':
      return { _tag: 'Unlocked', entity: step.target }
    case 'put':
    case 'insert':
    case 'eat':
      return goal
  }
}

/** Off-quest door states and distractors, in place. */
const furnish = (rng: Rng.Rng, layout: Layout, chain: Chain, objects: number): void => {
  const d = chain.draft
  const R = layout.xy.length
  const lockWithKey = (e: number): void => {
    d.status[e] = LOCKED
    d.key[e] = add(d, 'item', { isKey: true, pos: UNPLACED })
  }
  d.kind.forEach((kind, e) => {
    if (kind !== 'door' || chain.traversed.has(e)) return
    const u = rng.next()
    if (u < 0.2 && objectCount(d) < objects) lockWithKey(e)
    else d.status[e] = u < 0.6 ? CLOSED : OPEN
  })
  while (objectCount(d) < objects) {
    const u = rng.next()
    if (u < 0.2) add(d, 'supporter', { room: rng.int(R) })
    else if (u < 0.4) {
      const c = add(d, 'container', { room: rng.int(R), status: rng.next() < 0.5 ? OPEN : CLOSED })
      if (d.status[c] === CLOSED && objectCount(d) < objects && rng.next() < 0.4) lockWithKey(c)
    } else add(d, 'item', { edible: u >= 0.8, pos: UNPLACED })
  }
  for (let e = 0; e < d.kind.length; e++) {
    if (d.kind[e] !== 'item' || d.pos[e] !== UNPLACED) continue
    const room = rng.int(R)
    const holders = [-1]
    for (let h = 0; h < d.kind.length; h++)
      if (d.room[h] === room && (d.kind[h] === 'supporter' || d.kind[h] === 'container') && d.key[h] !== e) holders.push(h)
    const h =
      holders[
        pickIndex(
          rng,
          holders.map((x) => ({ weight: x < 0 ? holders.length : 1 }))
        )
      ]!
    d.pos[e] = h < 0 ? room : R + h
  }
}

const nameAll = (rng: Rng.Rng, d: Draft): string[] => {
  const draw = {
    door: Names.drawer(rng, Names.doorNames),
    container: Names.drawer(rng, Names.containerNames),
    supporter: Names.drawer(rng, Names.supporterNames),
    item: Names.drawer(rng, Names.itemNames),
    food: Names.drawer(rng, Names.foodNames),
    key: Names.drawer(rng, Names.keyNames)
  }
  return d.kind.map((kind, e) => (kind === 'item' ? (d.isKey[e] ? draw.key() : d.edible[e] ? draw.food() : draw.item()) : draw[kind]()))
}

const assemble = (options: Options, layout: Layout, doorOn: Int16Array, chain: Chain, rng: Rng.Rng): Game => {
  const d = chain.draft
  const names = nameAll(rng.split(), d)
  const roomNames = Rng.shuffle(rng)(Names.roomNames)
  const rooms: Room[] = layout.xy.map(([x, y], r) => {
    const name = roomNames[r % roomNames.length]!
    return { name, x, y, intro: Rng.pick(rng)(Names.roomIntros)(name) }
  })
  const entities: Entity[] = d.kind.map((kind, e) => ({
    kind,
    name: names[e]!,
    room: d.room[e]!,
    between: d.between[e],
    key: d.key[e]!,
    isKey: d.isKey[e]!,
    edible: d.edible[e]!,
    description: ''
  }))
  const walkthrough = chain.steps.map((s) => render(names, s))
  const subgoals = chain.steps.flatMap((s) => {
    const f = subgoalOf(s, chain.goal)
    return f === undefined ? [] : [f]
  })
  const goal = chain.goal
  const detail = options.objective ?? 'steps'
  const last = walkthrough[walkthrough.length - 1]!
  const objective =
    detail === 'none'
      ? ''
      : detail === 'brief'
        ? Text.brief(last, goal._tag === 'Placed' ? rooms[d.room[goal.holder]!]!.name : undefined)
        : Text.stepByStep(rng, walkthrough)
  return build({
    setting: `w${options.rooms}-o${options.objects}-q${options.questLength}`,
    seed: options.seed,
    rooms,
    exits: layout.exits,
    doors: doorOn,
    entities,
    pos: d.pos,
    status: d.status,
    player: d.player,
    quest: { goal, lose: goal._tag === 'Placed' && d.edible[goal.item] ? { _tag: 'Eaten', item: goal.item } : undefined, subgoals, walkthrough },
    objective
  })
}

/**
 * Generates the game for a seed, or says why it could not (settings outside the codec's
 * bounds, or no optimal quest of that length found).
 *
 * @example
 * import { Generator } from '@mtrl/env-textworld'
 * const game = Generator.generate({ rooms: 2, objects: 3, questLength: 4, seed: 1 })
 *
 * @category constructors
 * @since 0.1.0
 */
export const generate = (options: Options): E.Either<string, Game> => {
  const { rooms, objects, questLength } = options
  if (!Number.isInteger(rooms) || rooms < 1 || !Number.isInteger(questLength) || questLength < 1 || !Number.isInteger(objects) || objects < 0)
    return E.left(`invalid settings: rooms ${rooms}, objects ${objects}, quest length ${questLength}`)
  const rng = Rng.make(options.seed)
  const layout = grow(rng.split(), rooms)
  const questRng = rng.split()
  const textRng = rng.split()
  const base: Draft = { kind: [], room: [], between: [], key: [], isKey: [], edible: [], pos: [], status: [], player: 0 }
  const doorOn = new Int16Array(4 * rooms).fill(-1)
  for (const [a, dir, b] of layout.edges) {
    if (questRng.next() >= 0.5) continue
    const door = add(base, 'door', { between: [a, b], status: OPEN })
    doorOn[4 * a + dir] = door
    doorOn[4 * b + opposite(dir)] = door
  }
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const chain = backward(questRng, layout, doorOn, base, questLength, objects)
    if (chain === undefined) continue
    furnish(questRng, layout, chain, objects)
    const game = assemble(options, layout, doorOn, chain, textRng.split())
    const best = Expert.plan(game)(game.initial)
    if (O.isSome(best) && best.value.length === questLength) return E.right(game)
  }
  return E.left(`no quest of length ${questLength} found in ${ATTEMPTS} attempts (w${rooms}-o${objects}-q${questLength}, seed ${options.seed})`)
}

/**
 * `generate` for settings known to be valid; throws otherwise (a programmer error).
 *
 * @category constructors
 * @since 0.1.0
 */
export const generateOrThrow = (options: Options): Game =>
  E.getOrElse<string, Game>((reason) => {
    throw new Error(`Generator.generate: ${reason}`)
  })(generate(options))
