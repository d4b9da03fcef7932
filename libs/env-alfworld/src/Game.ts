/**
 * The game's rules as pure functions over an immutable state: what each command does, which
 * commands are admissible, when the goal holds, and the dense subgoal progress. The `Env`
 * (`AlfWorld.make`) and the expert (`Expert.plan`) are built on these.
 *
 * Rules follow ALFWorld's text engine: the agent holds at most one object; openable
 * receptacles must be open to take from or put into; heat/cool/clean need the held object at a
 * microwave/fridge/sinkbasin; the look task is won holding the object beside a lit desklamp.
 * An impossible or unknown command answers "Nothing happens." and changes nothing.
 *
 * @since 0.1.0
 */
import { objectKind } from './internal/catalog.js'
import { describe, list, overview } from './internal/narration.js'
import * as Command from './Command.js'
import type { Game } from './Scene.js'
import { goalText, subgoals, transformOf } from './Task.js'

/** Object state bits. @category constants @since 0.1.0 */
export const CLEAN = 1
/** @category constants @since 0.1.0 */
export const HOT = 2
/** @category constants @since 0.1.0 */
export const COLD = 4
/** @category constants @since 0.1.0 */
export const SLICED = 8
/** A lamp that is on. @category constants @since 0.1.0 */
export const ON = 16

/**
 * Everything that changes during an episode.
 *
 * - `at`: receptacle index the agent stands at, -1 in the middle of the room (the start);
 * - `holding`: object index in hand, -1 for none;
 * - `objectAt[i]`: receptacle holding object i, -1 while held;
 * - `opened[r]`: receptacle r is open (always true when it cannot be closed);
 * - `flags[i]`: bits `CLEAN | HOT | COLD | SLICED | ON` of object i;
 * - `progress`: bit k set once dense subgoal k was reached.
 *
 * @category models
 * @since 0.1.0
 */
export interface State {
  readonly game: Game
  readonly at: number
  readonly holding: number
  readonly objectAt: ReadonlyArray<number>
  readonly opened: ReadonlyArray<boolean>
  readonly flags: ReadonlyArray<number>
  readonly progress: number
}

/**
 * The answer to one command: the next state, the feedback text, and whether it was valid.
 *
 * @category models
 * @since 0.1.0
 */
export interface Outcome {
  readonly state: State
  readonly feedback: string
  readonly valid: boolean
}

/**
 * The state at the start of a game.
 *
 * @category constructors
 * @since 0.1.0
 */
export const start = (game: Game): State => ({
  game,
  at: -1,
  holding: -1,
  objectAt: game.scene.objectAt,
  opened: game.scene.opened,
  flags: game.scene.objects.map(() => 0),
  progress: 0
})

/**
 * The first observation: the room overview and the goal.
 *
 * @category destructors
 * @since 0.1.0
 */
export const intro = (state: State): string => `${overview(state.game.scene)}\n\nYour task is to: ${goalText(state.game.task)}`

const isType = (state: State, i: number): boolean => state.game.scene.objects[i]!.type === state.game.task.object

/**
 * Whether the goal holds in this state.
 *
 * @category destructors
 * @since 0.1.0
 */
export const won = (state: State): boolean => {
  const { scene, task } = state.game
  const inTarget = (i: number): boolean => {
    const r = state.objectAt[i]!
    return r >= 0 && scene.receptacles[r]!.type === task.target
  }
  switch (task.type) {
    case 'look_at_obj_in_light':
      return state.holding >= 0 && isType(state, state.holding) && state.at >= 0 && state.flags.some((f, i) => (f & ON) !== 0 && state.objectAt[i] === state.at)
    case 'pick_two_obj_and_place': {
      const count = new Map<number, number>()
      for (let i = 0; i < scene.objects.length; i++) {
        if (!isType(state, i) || !inTarget(i)) continue
        const r = state.objectAt[i]!
        const n = (count.get(r) ?? 0) + 1
        if (n >= 2) return true
        count.set(r, n)
      }
      return false
    }
    case 'pick_and_place_simple':
    case 'pick_clean_then_place_in_recep':
    case 'pick_heat_then_place_in_recep':
    case 'pick_cool_then_place_in_recep': {
      const transform = transformOf(task.type)
      const bit = transform === 'clean' ? CLEAN : transform === 'heat' ? HOT : transform === 'cool' ? COLD : 0
      return scene.objects.some((_, i) => isType(state, i) && inTarget(i) && (state.flags[i]! & bit) === bit)
    }
  }
}

/**
 * Number of dense subgoals of the task (`Task.subgoals`).
 *
 * @category destructors
 * @since 0.1.0
 */
export const maxScore = (state: State): number => subgoals(state.game.task.type).length

/**
 * Dense subgoals reached so far (each counted once, never lost).
 *
 * @category destructors
 * @since 0.1.0
 */
export const score = (state: State): number => {
  let n = 0
  for (let p = state.progress; p !== 0; p >>= 1) n += p & 1
  return n
}

const progressOf = (state: State): number => {
  const total = maxScore(state)
  const all = (1 << total) - 1
  if (won(state)) return all
  const { scene, task } = state.game
  let bits = state.progress
  const visible = (i: number): boolean => state.at >= 0 && state.objectAt[i] === state.at && state.opened[state.at] === true
  for (let i = 0; i < scene.objects.length; i++) {
    if (!isType(state, i)) continue
    if (visible(i) || state.holding === i) bits |= 1
    if (state.holding === i) bits |= 2
    const transform = transformOf(task.type)
    const bit = transform === 'clean' ? CLEAN : transform === 'heat' ? HOT : transform === 'cool' ? COLD : 0
    if (bit !== 0 && (state.flags[i]! & bit) !== 0) bits |= 4
    const r = state.objectAt[i]!
    if (task.type === 'pick_two_obj_and_place' && r >= 0 && scene.receptacles[r]!.type === task.target) bits |= 4
  }
  return bits & all
}

const invalid = (state: State): Outcome => ({ state, feedback: 'Nothing happens.', valid: false })

const replace = <A>(xs: ReadonlyArray<A>, i: number, x: A): ReadonlyArray<A> => {
  const out = xs.slice()
  out[i] = x
  return out
}

/**
 * Applies a parsed command. Impossible commands return the same state object, `valid: false`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const apply =
  (command: Command.Command) =>
  (state: State): Outcome => {
    const { scene } = state.game
    const rName = (r: number): string => scene.receptacles[r]!.name
    const oName = (i: number): string => scene.objects[i]!.name
    const here = (r: number): boolean => state.at === r
    const visible = (i: number): boolean => state.at >= 0 && state.objectAt[i] === state.at && state.opened[state.at] === true
    const done = (next: State, feedback: string): Outcome => {
      const progress = progressOf(next)
      return { state: progress === next.progress ? next : { ...next, progress }, feedback, valid: true }
    }
    switch (command._tag) {
      case 'GoTo': {
        const r = command.receptacle
        if (here(r)) return invalid(state)
        return done({ ...state, at: r }, `You arrive at ${rName(r)}. ${describe(scene, state.objectAt, state.opened, r)}`)
      }
      case 'Open': {
        const r = command.receptacle
        if (!here(r) || !scene.receptacles[r]!.openable || state.opened[r]) return invalid(state)
        const opened = replace(state.opened, r, true)
        return done({ ...state, opened }, `You open the ${rName(r)}. ${describe(scene, state.objectAt, opened, r)}`)
      }
      case 'Close': {
        const r = command.receptacle
        if (!here(r) || !scene.receptacles[r]!.openable || !state.opened[r]) return invalid(state)
        return done({ ...state, opened: replace(state.opened, r, false) }, `You close the ${rName(r)}.`)
      }
      case 'Take': {
        const { object: i, receptacle: r } = command
        if (!here(r) || !visible(i) || state.holding >= 0 || !objectKind(scene.objects[i]!.type).pickupable) return invalid(state)
        return done({ ...state, holding: i, objectAt: replace(state.objectAt, i, -1) }, `You pick up the ${oName(i)} from the ${rName(r)}.`)
      }
      case 'Move': {
        const { object: i, receptacle: r } = command
        if (!here(r) || state.holding !== i || !state.opened[r]) return invalid(state)
        return done({ ...state, holding: -1, objectAt: replace(state.objectAt, i, r) }, `You move the ${oName(i)} to the ${rName(r)}.`)
      }
      case 'Heat':
      case 'Cool':
      case 'Clean': {
        const { object: i, receptacle: r } = command
        const kind = objectKind(scene.objects[i]!.type)
        const [appliance, able, set, clear, verb] =
          command._tag === 'Heat'
            ? (['microwave', kind.heatable, HOT, COLD, 'heat'] as const)
            : command._tag === 'Cool'
              ? (['fridge', kind.coolable, COLD, HOT, 'cool'] as const)
              : (['sinkbasin', kind.cleanable, CLEAN, 0, 'clean'] as const)
        if (!here(r) || state.holding !== i || scene.receptacles[r]!.type !== appliance || !able) return invalid(state)
        const flags = replace(state.flags, i, (state.flags[i]! | set) & ~clear)
        return done({ ...state, flags }, `You ${verb} the ${oName(i)} using the ${rName(r)}.`)
      }
      case 'Slice': {
        const { object: i, tool } = command
        const kind = objectKind(scene.objects[i]!.type)
        if (state.holding !== tool || !objectKind(scene.objects[tool]!.type).slicer || !visible(i) || !kind.sliceable) return invalid(state)
        if ((state.flags[i]! & SLICED) !== 0) return invalid(state)
        return done({ ...state, flags: replace(state.flags, i, state.flags[i]! | SLICED) }, `You slice the ${oName(i)} using the ${oName(tool)}.`)
      }
      case 'Use': {
        const i = command.object
        if (!visible(i) || !objectKind(scene.objects[i]!.type).lamp) return invalid(state)
        const on = (state.flags[i]! & ON) === 0
        return done({ ...state, flags: replace(state.flags, i, state.flags[i]! ^ ON) }, `You turn ${on ? 'on' : 'off'} the ${oName(i)}.`)
      }
      case 'ExamineReceptacle':
        return here(command.receptacle) ? done(state, describe(scene, state.objectAt, state.opened, command.receptacle)) : invalid(state)
      case 'ExamineObject': {
        const i = command.object
        if (state.holding !== i && !visible(i)) return invalid(state)
        const lamp = objectKind(scene.objects[i]!.type).lamp
        return done(state, lamp ? `The ${oName(i)} is ${(state.flags[i]! & ON) !== 0 ? 'on' : 'off'}.` : `There's nothing special about ${oName(i)}.`)
      }
      case 'Look':
        return done(state, state.at < 0 ? overview(scene) : `You are facing the ${rName(state.at)}. Next to it, you see nothing.`)
      case 'Inventory':
        return done(state, state.holding < 0 ? 'You are not carrying anything.' : `You are carrying: ${list([oName(state.holding)])}.`)
    }
  }

/**
 * Parses and applies one text command.
 *
 * @example
 * import { Game, Scene } from '@mtrl/env-alfworld'
 * const s0 = Game.start(Scene.generate('train', ['pick_and_place_simple'])(0))
 * Game.step('dance')(s0).feedback // 'Nothing happens.'
 *
 * @category combinators
 * @since 0.1.0
 */
export const step =
  (action: string) =>
  (state: State): Outcome => {
    const command = Command.parse(state.game.scene)(action)
    return command === undefined ? invalid(state) : apply(command)(state)
  }

export { admissible, admissibleCommands } from './internal/admissible.js'
