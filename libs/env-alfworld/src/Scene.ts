/**
 * Procedurally generated ALFWorld-style games: a room of one of four kinds (kitchen, living
 * room, bedroom, bathroom) with numbered receptacles ("cabinet 3", "fridge 1"), numbered
 * objects placed by plausible rules (mugs in cabinets, apples on countertops) and a task of
 * one of the six types. A seed, a split and a task-type filter determine the game.
 *
 * @since 0.1.0
 */
import { Rng } from '@mtrl/core'
import { objectKind, objectKinds, openableTypes, roomSpecs, type RoomKind } from './internal/catalog.js'
import { layout as layoutOf } from './internal/layouts.js'
import { layoutIds, splits, taskObjects, type Split } from './Split.js'
import { roomsFor, targetsFor, taskTypes as taskTypeList, type Task, type TaskType } from './Task.js'

export type { RoomKind } from './internal/catalog.js'

/**
 * A numbered receptacle ("cabinet 3").
 *
 * @category models
 * @since 0.1.0
 */
export interface Receptacle {
  readonly name: string
  readonly type: string
  readonly openable: boolean
}

/**
 * A numbered object ("apple 1").
 *
 * @category models
 * @since 0.1.0
 */
export interface Item {
  readonly name: string
  readonly type: string
}

/**
 * A room and where everything starts: `objectAt[i]` is the index of the receptacle holding
 * object i; `opened[r]` says whether receptacle r starts open (always true when not openable).
 *
 * @category models
 * @since 0.1.0
 */
export interface Scene {
  readonly room: RoomKind
  readonly layout: number
  /** Equal signatures mean the same receptacle set. */
  readonly layoutSignature: string
  readonly receptacles: ReadonlyArray<Receptacle>
  readonly objects: ReadonlyArray<Item>
  readonly objectAt: ReadonlyArray<number>
  readonly opened: ReadonlyArray<boolean>
}

/**
 * A generated game: the scene and the task, with the split and seed it came from.
 *
 * @category models
 * @since 0.1.0
 */
export interface Game {
  readonly split: Split
  readonly seed: number
  readonly scene: Scene
  readonly task: Task
}

/**
 * An independent stream per (seed, split, task type): the same seed gives unrelated games in
 * two splits or under two task-type filters.
 */
const streamFor = (seed: number, split: Split, type: TaskType): Rng.Rng => {
  const base = Rng.make(seed)
  let rng = base.split()
  for (let i = 0; i < splits.indexOf(split); i++) rng = base.split()
  for (let i = 0; i <= taskTypeList.indexOf(type); i++) rng = rng.split()
  return rng
}

const numbered = (types: ReadonlyArray<string>): ReadonlyArray<string> => {
  const counts = new Map<string, number>()
  return types.map((type) => {
    const n = (counts.get(type) ?? 0) + 1
    counts.set(type, n)
    return `${type} ${n}`
  })
}

interface Choice {
  readonly room: RoomKind
  readonly layout: number
  readonly task: Task
}

const choose = (rng: Rng.Rng, split: Split, type: TaskType): Choice => {
  const pick = Rng.pick(rng)
  for (let attempt = 0; attempt < 200; attempt++) {
    const room = pick(roomsFor(type))
    const layout = layoutOf(room, pick(layoutIds(split)))
    const present = new Set(layout.receptacles)
    const candidates = taskObjects(split, type).filter((o) => roomSpecs[room].objects.includes(o) && objectKind(o).placements.some((r) => present.has(r)))
    if (candidates.length === 0) continue
    const object = pick(candidates)
    if (type === 'look_at_obj_in_light') return { room, layout: layout.id, task: { type, object, target: 'desklamp' } }
    const placements = objectKind(object).placements
    const targets = targetsFor(type, object).filter((r) => present.has(r) && placements.some((p) => p !== r && present.has(p)))
    if (targets.length === 0) continue
    return { room, layout: layout.id, task: { type, object, target: pick(targets) } }
  }
  throw new Error(`Scene.generate: no feasible ${type} game in ${split}`)
}

/**
 * The task type of `seed` under the filter `taskTypes`: `taskTypes[seed mod n]` (consecutive
 * seeds cycle through the filter evenly; negative seeds too).
 *
 * @example
 * import { Scene } from '@mtrl/env-alfworld'
 * Scene.taskTypeOf(['pick_and_place_simple', 'pick_two_obj_and_place'])(3) // 'pick_two_obj_and_place'
 *
 * @category destructors
 * @since 0.1.0
 */
export const taskTypeOf =
  (taskTypes: ReadonlyArray<TaskType>) =>
  (seed: number): TaskType => {
    if (taskTypes.length === 0) throw new RangeError('Scene.taskTypeOf: empty task-type filter')
    const n = taskTypes.length
    return taskTypes[((Math.trunc(seed) % n) + n) % n]!
  }

/**
 * Builds the game for `seed` in `split`. The task type is `taskTypes[seed mod n]`, so
 * consecutive seeds cycle through the filter evenly; everything else is drawn from the seed.
 *
 * @example
 * import { Scene } from '@mtrl/env-alfworld'
 * const game = Scene.generate('train', ['pick_heat_then_place_in_recep'])(7)
 * game.task.object // e.g. 'potato'
 *
 * @category constructors
 * @since 0.1.0
 */
export const generate =
  (split: Split, taskTypes: ReadonlyArray<TaskType>) =>
  (seed: number): Game => {
    if (taskTypes.length === 0) throw new RangeError('Scene.generate: empty task-type filter')
    const type = taskTypeOf(taskTypes)(seed)
    const rng = streamFor(seed, split, type)
    const pick = Rng.pick(rng)
    const { room, layout, task } = choose(rng, split, type)
    const receptacleTypes = layoutOf(room, layout).receptacles
    const indicesOf = (types: ReadonlyArray<string>): number[] => receptacleTypes.flatMap((r, i) => (types.includes(r) ? [i] : []))

    const placed: Array<{ type: string; at: number }> = []
    const xCount = task.type === 'pick_two_obj_and_place' ? 2 + rng.int(3) : 1 + rng.int(3)
    const xSpots = indicesOf(objectKind(task.object).placements).filter((i) => receptacleTypes[i] !== task.target)
    for (let i = 0; i < xCount; i++) placed.push({ type: task.object, at: pick(xSpots) })
    if (roomSpecs[room].lamp) placed.push({ type: 'desklamp', at: pick(indicesOf(objectKinds['desklamp']!.placements)) })
    const clutter = roomSpecs[room].objects.filter((o) => o !== task.object)
    const clutterCount = 6 + rng.int(10)
    for (let i = 0; i < clutterCount; i++) {
      const type = pick(clutter)
      placed.push({ type, at: pick(indicesOf(objectKind(type).placements)) })
    }
    const order = Rng.shuffle(rng)(placed)
    const names = numbered(order.map((o) => o.type))
    const scene: Scene = {
      room,
      layout,
      layoutSignature: layoutOf(room, layout).signature,
      receptacles: numbered(receptacleTypes).map((name, i) => ({
        name,
        type: receptacleTypes[i]!,
        openable: openableTypes.has(receptacleTypes[i]!)
      })),
      objects: order.map((o, i) => ({ name: names[i]!, type: o.type })),
      objectAt: order.map((o) => o.at),
      opened: receptacleTypes.map((r) => !openableTypes.has(r) || rng.next() < 0.25)
    }
    return { split, seed, scene, task }
  }

/**
 * A structural fingerprint of a game: room, layout, open states, which object type lies where,
 * and the task. Two games with the same fingerprint are the same game up to object numbering.
 *
 * @category destructors
 * @since 0.1.0
 */
export const fingerprint = (game: Game): string => {
  const { scene, task } = game
  const placements = scene.objects.map((o, i) => `${o.type}@${scene.receptacles[scene.objectAt[i]!]!.name}`).sort()
  const open = scene.opened.map((o) => (o ? '1' : '0')).join('')
  return `${scene.layoutSignature}|${open}|${task.type}:${task.object}->${task.target}|${placements.join(',')}`
}
