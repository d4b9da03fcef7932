/**
 * The expert: a shortest plan from any reachable state, for SFT demonstrations (the paper's
 * cold start, Wang & Ammanabrolu 2025 §6) and for checking the game can be won.
 *
 * Breadth-first search over the game's own transitions (`Game.apply`), so the plan is valid
 * by construction. The search only considers commands that can lie on a shortest plan:
 * - going to receptacles that matter: those holding an object of the task's type, the
 *   appliance the task needs, desklamps for the look task, the agent's own spot, and among the
 *   other receptacles of the target type one open and one closed representative (they are
 *   interchangeable);
 * - opening those receptacles (closing never helps), taking task objects only (taking clutter
 *   only fills the hand), putting the held object down where the agent stands (a held piece of
 *   clutter can always be put down, at no extra cost, where the first task object is taken),
 *   the task's own transformation, and the lamp for the look task.
 * Every command costs one turn, so BFS depth is plan length.
 *
 * @since 0.1.0
 */
import * as O from 'fp-ts/lib/Option.js'
import type * as Command from './Command.js'
import * as CommandText from './Command.js'
import * as Game from './Game.js'
import { objectKind } from './internal/catalog.js'
import { transformOf } from './Task.js'

const applianceOf = { clean: 'sinkbasin', heat: 'microwave', cool: 'fridge' } as const

const relevantReceptacles = (state: Game.State): ReadonlyArray<number> => {
  const { scene, task } = state.game
  const transform = transformOf(task.type)
  const set = new Set<number>()
  if (state.at >= 0) set.add(state.at)
  scene.objects.forEach((o, i) => {
    const r = state.objectAt[i]!
    if (r < 0) return
    if (o.type === task.object || (task.type === 'look_at_obj_in_light' && objectKind(o.type).lamp)) set.add(r)
  })
  scene.receptacles.forEach((r, i) => {
    if (transform !== undefined && r.type === applianceOf[transform]) set.add(i)
  })
  let openRep = false
  let closedRep = false
  scene.receptacles.forEach((r, i) => {
    if (r.type !== task.target || set.has(i)) return
    if (state.opened[i] === true && !openRep) {
      openRep = true
      set.add(i)
    } else if (state.opened[i] !== true && !closedRep) {
      closedRep = true
      set.add(i)
    }
  })
  return [...set].sort((a, b) => a - b)
}

const candidates = (state: Game.State, relevant: ReadonlyArray<number>): Command.Command[] => {
  const { scene, task } = state.game
  const out: Command.Command[] = []
  for (const r of relevant) if (r !== state.at) out.push({ _tag: 'GoTo', receptacle: r })
  const at = state.at
  if (at < 0) return out
  if (scene.receptacles[at]!.openable && state.opened[at] !== true) out.push({ _tag: 'Open', receptacle: at })
  if (state.holding >= 0) {
    out.push({ _tag: 'Move', object: state.holding, receptacle: at })
    const transform = transformOf(task.type)
    if (transform !== undefined && scene.objects[state.holding]!.type === task.object) {
      const tag = transform === 'clean' ? 'Clean' : transform === 'heat' ? 'Heat' : 'Cool'
      out.push({ _tag: tag, object: state.holding, receptacle: at })
    }
  }
  scene.objects.forEach((o, i) => {
    if (state.objectAt[i] !== at) return
    if (o.type === task.object && state.holding < 0) out.push({ _tag: 'Take', object: i, receptacle: at })
    if (task.type === 'look_at_obj_in_light' && objectKind(o.type).lamp) out.push({ _tag: 'Use', object: i })
  })
  return out
}

const keyOf = (state: Game.State, relevant: ReadonlyArray<number>, watched: ReadonlyArray<number>): string => {
  let key = `${state.at}|${state.holding}|`
  for (const r of relevant) key += state.opened[r] === true ? '1' : '0'
  for (const i of watched) key += `,${state.objectAt[i]}:${state.flags[i]}`
  return key
}

interface Node {
  readonly state: Game.State
  readonly parent: Node | undefined
  readonly command: Command.Command | undefined
}

/**
 * A shortest sequence of commands from `state` to the goal; `[]` if the goal already holds,
 * `none` if it cannot be reached (never the case for generated games).
 *
 * @example
 * import { Expert, Game, Scene } from '@mtrl/env-alfworld'
 * const s0 = Game.start(Scene.generate('train', ['pick_cool_then_place_in_recep'])(3))
 * const plan = Expert.plan(s0) // some(['go to countertop 1', 'take apple 2 from countertop 1', ...])
 *
 * @category destructors
 * @since 0.1.0
 */
export const planCommands = (state: Game.State): O.Option<ReadonlyArray<Command.Command>> => {
  if (Game.won(state)) return O.some([])
  const relevant = relevantReceptacles(state)
  const { scene, task } = state.game
  const watched = scene.objects.flatMap((o, i) => (o.type === task.object || (task.type === 'look_at_obj_in_light' && objectKind(o.type).lamp) ? [i] : []))
  const seen = new Set<string>([keyOf(state, relevant, watched)])
  let frontier: Node[] = [{ state, parent: undefined, command: undefined }]
  while (frontier.length > 0) {
    const next: Node[] = []
    for (const node of frontier) {
      for (const command of candidates(node.state, relevant)) {
        const outcome = Game.apply(command)(node.state)
        if (!outcome.valid) continue
        const key = keyOf(outcome.state, relevant, watched)
        if (seen.has(key)) continue
        seen.add(key)
        const child: Node = { state: outcome.state, parent: node, command }
        if (Game.won(outcome.state)) {
          const commands: Command.Command[] = []
          for (let n: Node | undefined = child; n?.command !== undefined; n = n.parent) commands.push(n.command)
          return O.some(commands.reverse())
        }
        next.push(child)
      }
    }
    frontier = next
  }
  return O.none
}

/**
 * {@link planCommands} as text commands, ready to send to `step`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const plan = (state: Game.State): O.Option<ReadonlyArray<string>> =>
  O.map((commands: ReadonlyArray<Command.Command>) => commands.map(CommandText.render(state.game.scene)))(planCommands(state))

/**
 * The expert's next command, if the goal is not yet reached.
 *
 * @category destructors
 * @since 0.1.0
 */
export const next = (state: Game.State): O.Option<string> => O.chain((steps: ReadonlyArray<string>) => O.fromNullable(steps[0]))(plan(state))
