/**
 * ALFWorld's command grammar: parsing text into commands over a scene's numbered receptacles
 * and objects, and rendering commands back to the canonical text.
 *
 * Templates (ALFWorld `alfred.twl2`): `go to {r}`, `take {o} from {r}`, `move {o} to {r}` (the
 * older `put {o} in/on {r}` is accepted too), `open {r}`, `close {r}`, `use {lamp}`,
 * `heat {o} with {r}`, `cool {o} with {r}`, `clean {o} with {r}`, `slice {o} with {knife}`,
 * `examine {x}`, `look`, `inventory`.
 *
 * @since 0.1.0
 */
import type { Scene } from './Scene.js'

/**
 * A parsed command; numbers index the scene's `receptacles` and `objects`.
 *
 * @category models
 * @since 0.1.0
 */
export type Command =
  | { readonly _tag: 'GoTo'; readonly receptacle: number }
  | { readonly _tag: 'Take'; readonly object: number; readonly receptacle: number }
  | { readonly _tag: 'Move'; readonly object: number; readonly receptacle: number }
  | { readonly _tag: 'Open'; readonly receptacle: number }
  | { readonly _tag: 'Close'; readonly receptacle: number }
  | { readonly _tag: 'Use'; readonly object: number }
  | { readonly _tag: 'Heat'; readonly object: number; readonly receptacle: number }
  | { readonly _tag: 'Cool'; readonly object: number; readonly receptacle: number }
  | { readonly _tag: 'Clean'; readonly object: number; readonly receptacle: number }
  | { readonly _tag: 'Slice'; readonly object: number; readonly tool: number }
  | { readonly _tag: 'ExamineReceptacle'; readonly receptacle: number }
  | { readonly _tag: 'ExamineObject'; readonly object: number }
  | { readonly _tag: 'Look' }
  | { readonly _tag: 'Inventory' }

interface Names {
  readonly receptacles: ReadonlyMap<string, number>
  readonly objects: ReadonlyMap<string, number>
}

const cache = new WeakMap<Scene, Names>()

const namesOf = (scene: Scene): Names => {
  let names = cache.get(scene)
  if (names === undefined) {
    names = {
      receptacles: new Map(scene.receptacles.map((r, i) => [r.name, i])),
      objects: new Map(scene.objects.map((o, i) => [o.name, i]))
    }
    cache.set(scene, names)
  }
  return names
}

const patterns = {
  goTo: /^go to (.+)$/,
  take: /^take (.+) from (.+)$/,
  move: /^(?:move|put) (.+?) (?:to|in\/on|in|on|into|onto) (?:the )?(.+)$/,
  open: /^open (.+)$/,
  close: /^close (.+)$/,
  use: /^use (.+)$/,
  transform: /^(heat|cool|clean) (.+) with (.+)$/,
  slice: /^slice (.+) with (.+)$/,
  examine: /^examine (.+)$/
}

/**
 * Lower-cases, trims, collapses blanks and drops a final period: `"  Go to  Fridge 1."` ->
 * `"go to fridge 1"`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const normalize = (text: string): string => text.toLowerCase().trim().replace(/\s+/g, ' ').replace(/\.$/, '')

/**
 * Parses one command against the scene's names; `undefined` when the text is not a command
 * or names nothing in the scene. Parsing does not check that the command is possible.
 *
 * @example
 * import { Command, Scene } from '@mtrl/env-alfworld'
 * const game = Scene.generate('train', ['pick_and_place_simple'])(0)
 * Command.parse(game.scene)('look') // { _tag: 'Look' }
 *
 * @category constructors
 * @since 0.1.0
 */
export const parse =
  (scene: Scene) =>
  (text: string): Command | undefined => {
    const s = normalize(text)
    if (s === 'look') return { _tag: 'Look' }
    if (s === 'inventory' || s === 'i') return { _tag: 'Inventory' }
    const { receptacles, objects } = namesOf(scene)
    const r = (name: string | undefined): number | undefined => (name === undefined ? undefined : receptacles.get(name.replace(/^the /, '')))
    const o = (name: string | undefined): number | undefined => (name === undefined ? undefined : objects.get(name.replace(/^the /, '')))
    let m: RegExpExecArray | null
    if ((m = patterns.goTo.exec(s)) !== null) {
      const receptacle = r(m[1])
      return receptacle === undefined ? undefined : { _tag: 'GoTo', receptacle }
    }
    if ((m = patterns.take.exec(s)) !== null) {
      const object = o(m[1])
      const receptacle = r(m[2])
      return object === undefined || receptacle === undefined ? undefined : { _tag: 'Take', object, receptacle }
    }
    if ((m = patterns.move.exec(s)) !== null) {
      const object = o(m[1])
      const receptacle = r(m[2])
      return object === undefined || receptacle === undefined ? undefined : { _tag: 'Move', object, receptacle }
    }
    if ((m = patterns.open.exec(s)) !== null) {
      const receptacle = r(m[1])
      return receptacle === undefined ? undefined : { _tag: 'Open', receptacle }
    }
    if ((m = patterns.close.exec(s)) !== null) {
      const receptacle = r(m[1])
      return receptacle === undefined ? undefined : { _tag: 'Close', receptacle }
    }
    if ((m = patterns.use.exec(s)) !== null) {
      const object = o(m[1])
      return object === undefined ? undefined : { _tag: 'Use', object }
    }
    if ((m = patterns.transform.exec(s)) !== null) {
      const object = o(m[2])
      const receptacle = r(m[3])
      if (object === undefined || receptacle === undefined) return undefined
      return { _tag: m[1] === 'heat' ? 'Heat' : m[1] === 'cool' ? 'Cool' : 'Clean', object, receptacle }
    }
    if ((m = patterns.slice.exec(s)) !== null) {
      const object = o(m[1])
      const tool = o(m[2])
      return object === undefined || tool === undefined ? undefined : { _tag: 'Slice', object, tool }
    }
    if ((m = patterns.examine.exec(s)) !== null) {
      const receptacle = r(m[1])
      if (receptacle !== undefined) return { _tag: 'ExamineReceptacle', receptacle }
      const object = o(m[1])
      return object === undefined ? undefined : { _tag: 'ExamineObject', object }
    }
    return undefined
  }

/**
 * The canonical text of a command (the form `admissibleActions` lists).
 *
 * @category destructors
 * @since 0.1.0
 */
export const render =
  (scene: Scene) =>
  (command: Command): string => {
    const r = (i: number): string => scene.receptacles[i]!.name
    const o = (i: number): string => scene.objects[i]!.name
    switch (command._tag) {
      case 'GoTo':
        return `go to ${r(command.receptacle)}`
      case 'Take':
        return `take ${o(command.object)} from ${r(command.receptacle)}`
      case 'Move':
        return `move ${o(command.object)} to ${r(command.receptacle)}`
      case 'Open':
        return `open ${r(command.receptacle)}`
      case 'Close':
        return `close ${r(command.receptacle)}`
      case 'Use':
        return `use ${o(command.object)}`
      case 'Heat':
        return `heat ${o(command.object)} with ${r(command.receptacle)}`
      case 'Cool':
        return `cool ${o(command.object)} with ${r(command.receptacle)}`
      case 'Clean':
        return `clean ${o(command.object)} with ${r(command.receptacle)}`
      case 'Slice':
        return `slice ${o(command.object)} with ${o(command.tool)}`
      case 'ExamineReceptacle':
        return `examine ${r(command.receptacle)}`
      case 'ExamineObject':
        return `examine ${o(command.object)}`
      case 'Look':
        return 'look'
      case 'Inventory':
        return 'inventory'
    }
  }
