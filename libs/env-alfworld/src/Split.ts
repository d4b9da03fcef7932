/**
 * Splits as in ALFWorld: `train`, `valid-seen` (the training distribution, other games) and
 * `valid-unseen` (rooms and task/object combinations never produced for training), so that
 * generalisation can be measured as in Wang & Ammanabrolu 2025 (§5.3, Tables 7/8).
 *
 * What is held out for `valid-unseen`:
 * - room layouts: of the 16 layouts of each room kind, the last 4 appear only in unseen games;
 * - task objects: per task type, a few object types are asked for only in unseen games (they
 *   still appear as clutter, and in other task types, in training).
 * An unseen game has both a held-out layout and a held-out task object; a training or
 * seen-validation game has neither, so no unseen game can ever be produced for train.
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'
import { layoutsPerRoom } from './internal/layouts.js'
import { objectsFor, type TaskType } from './Task.js'

/**
 * @category codecs
 * @since 0.1.0
 */
export const Split = t.keyof({ train: null, 'valid-seen': null, 'valid-unseen': null })
/** @category models @since 0.1.0 */
export type Split = t.TypeOf<typeof Split>

/**
 * All splits.
 *
 * @category constants
 * @since 0.1.0
 */
export const splits: ReadonlyArray<Split> = ['train', 'valid-seen', 'valid-unseen']

/**
 * Layout ids reserved for `valid-unseen` (the same for every room kind).
 *
 * @category constants
 * @since 0.1.0
 */
export const heldOutLayouts: ReadonlyArray<number> = [12, 13, 14, 15]

/**
 * Object types asked for only in `valid-unseen` games, per task type.
 *
 * @category constants
 * @since 0.1.0
 */
export const heldOutObjects: Readonly<Record<TaskType, ReadonlyArray<string>>> = {
  pick_and_place_simple: ['peppershaker', 'pencil', 'spraybottle', 'vase'],
  look_at_obj_in_light: ['cd', 'statue', 'watch'],
  pick_clean_then_place_in_recep: ['ladle', 'tomato', 'soapbar'],
  pick_heat_then_place_in_recep: ['egg', 'plate'],
  pick_cool_then_place_in_recep: ['lettuce', 'pot', 'winebottle'],
  pick_two_obj_and_place: ['saltshaker', 'cd', 'toiletpaper', 'remotecontrol']
}

/**
 * The layout ids a split draws from.
 *
 * @category destructors
 * @since 0.1.0
 */
export const layoutIds = (split: Split): ReadonlyArray<number> => {
  const all = Array.from({ length: layoutsPerRoom }, (_, i) => i)
  return split === 'valid-unseen' ? all.filter((i) => heldOutLayouts.includes(i)) : all.filter((i) => !heldOutLayouts.includes(i))
}

/**
 * The object types a split asks for in tasks of this type.
 *
 * @category destructors
 * @since 0.1.0
 */
export const taskObjects = (split: Split, type: TaskType): ReadonlyArray<string> => {
  const held = heldOutObjects[type]
  return objectsFor(type).filter((o) => (split === 'valid-unseen') === held.includes(o))
}
