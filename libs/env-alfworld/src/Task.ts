/**
 * The six ALFWorld task types (ALFRED's names), a task instance (object type and target
 * receptacle type), ALFWorld's goal phrasing, and the dense subgoals of each type.
 *
 * Shridhar et al., "ALFWorld: Aligning Text and Embodied Environments for Interactive
 * Learning", ICLR 2021; the task mixtures of Wang & Ammanabrolu 2025, §5.3.
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'
import { objectKind, objectKinds, preposition, type RoomKind } from './internal/catalog.js'

/**
 * The six task types.
 *
 * @category codecs
 * @since 0.1.0
 */
export const TaskType = t.keyof({
  pick_and_place_simple: null,
  look_at_obj_in_light: null,
  pick_clean_then_place_in_recep: null,
  pick_heat_then_place_in_recep: null,
  pick_cool_then_place_in_recep: null,
  pick_two_obj_and_place: null
})
/** @category models @since 0.1.0 */
export type TaskType = t.TypeOf<typeof TaskType>

/**
 * All task types, in ALFWorld's order.
 *
 * @category constants
 * @since 0.1.0
 */
export const taskTypes: ReadonlyArray<TaskType> = Object.keys(TaskType.keys) as TaskType[]

/**
 * One task: bring an object of type `object` (in the state the type asks for) into a
 * receptacle of type `target`. For `look_at_obj_in_light` the target is `"desklamp"`.
 *
 * @category models
 * @since 0.1.0
 */
export interface Task {
  readonly type: TaskType
  readonly object: string
  readonly target: string
}

/**
 * The transformation a task type asks for, if any.
 *
 * @category destructors
 * @since 0.1.0
 */
export const transformOf = (type: TaskType): 'clean' | 'heat' | 'cool' | undefined => {
  switch (type) {
    case 'pick_clean_then_place_in_recep':
      return 'clean'
    case 'pick_heat_then_place_in_recep':
      return 'heat'
    case 'pick_cool_then_place_in_recep':
      return 'cool'
    case 'pick_and_place_simple':
    case 'look_at_obj_in_light':
    case 'pick_two_obj_and_place':
      return undefined
  }
}

/**
 * The goal sentence, as ALFWorld writes it after "Your task is to: ".
 *
 * @example
 * import { Task } from '@mtrl/env-alfworld'
 * Task.goalText({ type: 'pick_clean_then_place_in_recep', object: 'lettuce', target: 'fridge' })
 * // 'put a clean lettuce in fridge.'
 *
 * @category destructors
 * @since 0.1.0
 */
export const goalText = (task: Task): string => {
  switch (task.type) {
    case 'pick_and_place_simple':
      return `put some ${task.object} ${preposition(task.target)} ${task.target}.`
    case 'look_at_obj_in_light':
      return `look at ${task.object} under the desklamp.`
    case 'pick_clean_then_place_in_recep':
      return `put a clean ${task.object} in ${task.target}.`
    case 'pick_heat_then_place_in_recep':
      return `put a hot ${task.object} in ${task.target}.`
    case 'pick_cool_then_place_in_recep':
      return `put a cool ${task.object} in ${task.target}.`
    case 'pick_two_obj_and_place':
      return `put two ${task.object} in ${task.target}.`
  }
}

/**
 * Names of the dense subgoals of a task type, in order; the last one is the goal itself.
 * `maxScore` with dense rewards is their number.
 *
 * @category destructors
 * @since 0.1.0
 */
export const subgoals = (type: TaskType): ReadonlyArray<string> => {
  switch (type) {
    case 'pick_and_place_simple':
      return ['found', 'picked', 'placed']
    case 'look_at_obj_in_light':
      return ['found', 'picked', 'looked']
    case 'pick_clean_then_place_in_recep':
      return ['found', 'picked', 'cleaned', 'placed']
    case 'pick_heat_then_place_in_recep':
      return ['found', 'picked', 'heated', 'placed']
    case 'pick_cool_then_place_in_recep':
      return ['found', 'picked', 'cooled', 'placed']
    case 'pick_two_obj_and_place':
      return ['found', 'picked', 'placed one', 'placed two']
  }
}

/**
 * The room kinds where a task type can be set: heating and cooling need the kitchen's
 * microwave and fridge, cleaning a sinkbasin, looking in light a desklamp.
 *
 * @category destructors
 * @since 0.1.0
 */
export const roomsFor = (type: TaskType): ReadonlyArray<RoomKind> => {
  switch (type) {
    case 'pick_heat_then_place_in_recep':
    case 'pick_cool_then_place_in_recep':
      return ['kitchen']
    case 'pick_clean_then_place_in_recep':
      return ['kitchen', 'bathroom']
    case 'look_at_obj_in_light':
      return ['livingroom', 'bedroom']
    case 'pick_and_place_simple':
    case 'pick_two_obj_and_place':
      return ['kitchen', 'livingroom', 'bedroom', 'bathroom']
  }
}

const lookable = new Set(
  'alarmclock book bowl cd cellphone creditcard keychain laptop mug newspaper pen pencil pillow remotecontrol statue vase watch box'.split(' ')
)

/**
 * Object types a task type can ask for (before the split's hold-out).
 *
 * @category destructors
 * @since 0.1.0
 */
export const objectsFor = (type: TaskType): ReadonlyArray<string> =>
  Object.entries(objectKinds)
    .filter(([name, k]) => {
      if (!k.pickupable) return false
      switch (type) {
        case 'pick_and_place_simple':
        case 'pick_two_obj_and_place':
          return true
        case 'look_at_obj_in_light':
          return lookable.has(name)
        case 'pick_clean_then_place_in_recep':
          return k.cleanable
        case 'pick_heat_then_place_in_recep':
          return k.heatable
        case 'pick_cool_then_place_in_recep':
          return k.coolable
      }
    })
    .map(([name]) => name)

const transformTargets: Record<'clean' | 'heat' | 'cool', { readonly extra: ReadonlyArray<string>; readonly excluded: ReadonlyArray<string> }> = {
  clean: { extra: ['cabinet', 'countertop', 'diningtable', 'drawer', 'shelf', 'fridge', 'microwave'], excluded: ['sinkbasin', 'coffeemachine'] },
  heat: {
    extra: ['cabinet', 'countertop', 'diningtable', 'fridge', 'shelf', 'garbagecan'],
    excluded: ['microwave', 'sinkbasin', 'stoveburner', 'coffeemachine']
  },
  cool: {
    extra: ['cabinet', 'countertop', 'diningtable', 'microwave', 'shelf', 'garbagecan'],
    excluded: ['fridge', 'sinkbasin', 'stoveburner', 'coffeemachine']
  }
}

/**
 * Receptacle types that can be the target for `object` in a task of this type (before
 * intersecting with the room's receptacles). Empty for `look_at_obj_in_light`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const targetsFor = (type: TaskType, object: string): ReadonlyArray<string> => {
  if (type === 'look_at_obj_in_light') return []
  const placements = objectKind(object).placements
  const transform = transformOf(type)
  if (transform === undefined) return placements
  const { extra, excluded } = transformTargets[transform]
  return [...new Set([...placements, ...extra])].filter((r) => !excluded.includes(r))
}
