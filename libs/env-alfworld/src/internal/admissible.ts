/**
 * The admissible commands of a state, as ALFWorld lists them: every command that is possible
 * and could matter (examining visible clutter is possible but not listed, as in ALFWorld).
 */
import * as Command from '../Command.js'
import type { State } from '../Game.js'
import { objectKind } from './catalog.js'

const appliance: Readonly<Record<string, 'Heat' | 'Cool' | 'Clean'>> = { microwave: 'Heat', fridge: 'Cool', sinkbasin: 'Clean' }

/**
 * Admissible commands, parsed (in a fixed order: go to, open/close, take, move, transform,
 * slice, use, examine, look, inventory).
 *
 * @category destructors
 * @since 0.1.0
 */
export const admissibleCommands = (state: State): ReadonlyArray<Command.Command> => {
  const out: Command.Command[] = []
  for (let r = 0; r < state.game.scene.receptacles.length; r++) if (r !== state.at) out.push({ _tag: 'GoTo', receptacle: r })
  return out.concat(localCommands(state))
}

/** The admissible commands other than `go to`. */
const localCommands = (state: State): ReadonlyArray<Command.Command> => {
  const { scene } = state.game
  const out: Command.Command[] = []
  const at = state.at
  if (at >= 0) {
    const rec = scene.receptacles[at]!
    if (rec.openable) out.push(state.opened[at] === true ? { _tag: 'Close', receptacle: at } : { _tag: 'Open', receptacle: at })
    const open = state.opened[at] === true
    const held = state.holding
    const heldKind = held >= 0 ? objectKind(scene.objects[held]!.type) : undefined
    if (open) {
      for (let i = 0; i < scene.objects.length; i++) {
        if (state.objectAt[i] !== at) continue
        const kind = objectKind(scene.objects[i]!.type)
        if (held < 0 && kind.pickupable) out.push({ _tag: 'Take', object: i, receptacle: at })
        if (heldKind?.slicer === true && kind.sliceable && (state.flags[i]! & 8) === 0) out.push({ _tag: 'Slice', object: i, tool: held })
        if (kind.lamp) out.push({ _tag: 'Use', object: i })
      }
      if (held >= 0) out.push({ _tag: 'Move', object: held, receptacle: at })
    }
    const transform = appliance[rec.type]
    if (heldKind !== undefined && transform !== undefined) {
      const able = transform === 'Heat' ? heldKind.heatable : transform === 'Cool' ? heldKind.coolable : heldKind.cleanable
      if (able) out.push({ _tag: transform, object: held, receptacle: at })
    }
    out.push({ _tag: 'ExamineReceptacle', receptacle: at })
  }
  if (state.holding >= 0) out.push({ _tag: 'ExamineObject', object: state.holding })
  out.push({ _tag: 'Look' }, { _tag: 'Inventory' })
  return out
}

const goToCache = new WeakMap<State['game']['scene'], ReadonlyArray<readonly [string, number]>>()

/** `go to R` texts of a scene, sorted, with their receptacle index (computed once per scene). */
const goTos = (scene: State['game']['scene']): ReadonlyArray<readonly [string, number]> => {
  let cached = goToCache.get(scene)
  if (cached === undefined) {
    cached = scene.receptacles.map((r, i) => [`go to ${r.name}`, i] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    goToCache.set(scene, cached)
  }
  return cached
}

/**
 * Admissible commands as text, sorted (ALFWorld's `admissible_commands`). The `go to` texts
 * are rendered and sorted once per scene and merged with the few others.
 *
 * @category destructors
 * @since 0.1.0
 */
export const admissible = (state: State): ReadonlyArray<string> => {
  const scene = state.game.scene
  const render = Command.render(scene)
  const others = localCommands(state).map(render).sort()
  const out: string[] = []
  let j = 0
  for (const [text, r] of goTos(scene)) {
    if (r === state.at) continue
    while (j < others.length && others[j]! < text) out.push(others[j++]!)
    out.push(text)
  }
  while (j < others.length) out.push(others[j++]!)
  return out
}
