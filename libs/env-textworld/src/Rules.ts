/**
 * The rules of the game: what a command does to the state, what TextWorld answers, and which
 * commands are admissible. Invalid commands return the very same state object with
 * `valid = false` and TextWorld's kind of answer ("You can't see any such thing.").
 *
 * After every valid command the sticky subgoal mask, the score and the outcome (won when the
 * quest's goal holds, lost when its losing fact holds) are brought up to date.
 *
 * @since 0.1.0
 */
import { parse, type Command } from './Command.js'
import { CARRIED, CLOSED, DIRECTIONS, EATEN, holds, LOCKED, OPEN, OUTCOME, PLAYER, POS, SCORED, type Game, type State } from './Game.js'
import * as Text from './Text.js'

/**
 * The result of one command.
 *
 * @category models
 * @since 0.1.0
 */
export interface Outcome {
  readonly state: State
  readonly feedback: string
  readonly valid: boolean
  /** Subgoals newly reached (the score delta). */
  readonly reward: number
  readonly won: boolean
  readonly lost: boolean
}

const invalid = (state: State, feedback: string): Outcome => ({ state, feedback, valid: false, reward: 0, won: false, lost: false })
const same = (state: State, feedback: string): Outcome => ({ state, feedback, valid: true, reward: 0, won: false, lost: false })

const NO_SUCH = "You can't see any such thing."

/**
 * Where entity `e` can be acted on from the player's room: `held`, `here`, or undefined (out of
 * reach: another room, or inside a closed container).
 *
 * @category destructors
 * @since 0.3.0
 */
export const reach = (game: Game, state: State, e: number): 'held' | 'here' | undefined => {
  const entity = game.entities[e]!
  const room = state[PLAYER]!
  switch (entity.kind) {
    case 'door':
      return entity.between![0] === room || entity.between![1] === room ? 'here' : undefined
    case 'container':
    case 'supporter':
      return entity.room === room ? 'here' : undefined
    case 'item': {
      const p = state[POS + e]!
      if (p === CARRIED) return 'held'
      if (p === room) return 'here'
      const r = game.rooms.length
      if (p < r) return undefined
      const h = p - r
      const holder = game.entities[h]!
      if (holder.room !== room) return undefined
      return holder.kind === 'supporter' || state[POS + game.entities.length + h] === OPEN ? 'here' : undefined
    }
  }
}

/** Updates subgoals, score and outcome of a changed state; returns the reward. */
const settle = (game: Game, next: State, feedback: string): Outcome => {
  const { subgoals, goal, lose } = game.quest
  let mask = next[SCORED]! >>> 0
  let reward = 0
  for (let i = 0; i < subgoals.length; i++) {
    const bit = 1 << i
    if ((mask & bit) === 0 && holds(game, next, subgoals[i]!)) {
      mask = (mask | bit) >>> 0
      reward++
    }
  }
  next[SCORED] = mask | 0
  const lost = lose !== undefined && holds(game, next, lose)
  const won = !lost && holds(game, next, goal)
  next[OUTCOME] = won ? 1 : lost ? 2 : 0
  let text = feedback
  if (reward > 0) text += `\n\nYour score has just gone up by ${reward === 1 ? 'one point' : `${reward} points`}.`
  if (won) text += '\n\n*** The End ***'
  if (lost) text += '\n\n*** You lost! ***'
  return { state: next, feedback: text, valid: true, reward, won, lost }
}

const openness = (game: Game, e: number): number => POS + game.entities.length + e

/** The commands of one tag. */
type CommandOf<Tag extends Command['_tag']> = Extract<Command, { readonly _tag: Tag }>

/** A valid command that edits a copy of the state. */
const change = (game: Game, state: State, edit: (next: State) => void, feedback: string): Outcome => {
  const next = state.slice()
  edit(next)
  return settle(game, next, feedback)
}

/** `go <dir>`: through an open door (or none) to the neighbouring room. */
const go = (game: Game, state: State, command: CommandOf<'Go'>): Outcome => {
  const room = state[PLAYER]!
  const to = game.exits[4 * room + command.dir]!
  if (to < 0) return invalid(state, "You can't go that way.")
  const door = game.doors[4 * room + command.dir]!
  if (door >= 0 && state[openness(game, door)] !== OPEN) return invalid(state, `You have to open the ${game.entities[door]!.name} first.`)
  const next = state.slice()
  next[PLAYER] = to
  return settle(game, next, Text.describeRoom(game, next))
}

/** `take X` or `take X from Y`. */
const take = (game: Game, state: State, command: CommandOf<'Take'>): Outcome => {
  const ents = game.entities
  const R = game.rooms.length
  const item = ents[command.item]!
  const where = reach(game, state, command.item)
  if (where === undefined) return invalid(state, NO_SUCH)
  if (item.kind !== 'item') return invalid(state, "That's fixed in place.")
  if (where === 'held') return invalid(state, 'You already have that.')
  const p = state[POS + command.item]!
  if (command.from >= 0 && p !== R + command.from) return invalid(state, `The ${item.name} is not there.`)
  const source = p < R ? 'ground' : ents[p - R]!.name
  return change(game, state, (next) => (next[POS + command.item] = CARRIED), `You pick up the ${item.name} from the ${source}.`)
}

/** `put X on Y` or `insert X into Y`. */
const place = (game: Game, state: State, command: CommandOf<'Put' | 'Insert'>): Outcome => {
  const ents = game.entities
  const item = ents[command.item]!
  const holder = ents[command.holder]!
  if (reach(game, state, command.item) !== 'held')
    return invalid(state, reach(game, state, command.item) === undefined ? NO_SUCH : `You need to be holding the ${item.name} first.`)
  if (reach(game, state, command.holder) !== 'here') return invalid(state, NO_SUCH)
  const wanted = command._tag === 'Put' ? 'supporter' : 'container'
  if (holder.kind !== wanted) return invalid(state, command._tag === 'Put' ? "You can't put things on that." : "That can't contain things.")
  if (wanted === 'container' && state[openness(game, command.holder)] !== OPEN) return invalid(state, `The ${holder.name} is closed.`)
  const verb = command._tag === 'Put' ? 'on' : 'into'
  return change(game, state, (next) => (next[POS + command.item] = game.rooms.length + command.holder), `You put the ${item.name} ${verb} the ${holder.name}.`)
}

/** `drop X`: onto the floor of the player's room. */
const drop = (game: Game, state: State, command: CommandOf<'Drop'>): Outcome => {
  const where = reach(game, state, command.item)
  if (where !== 'held') return invalid(state, where === undefined ? NO_SUCH : "You haven't got that.")
  return change(game, state, (next) => (next[POS + command.item] = state[PLAYER]!), `You drop the ${game.entities[command.item]!.name} on the ground.`)
}

/** `eat X`: an edible item in hand. */
const eat = (game: Game, state: State, command: CommandOf<'Eat'>): Outcome => {
  const item = game.entities[command.item]!
  const where = reach(game, state, command.item)
  if (where === undefined) return invalid(state, NO_SUCH)
  if (!item.edible) return invalid(state, "That's plainly inedible.")
  if (where !== 'held') return invalid(state, `You need to be holding the ${item.name} first.`)
  return change(game, state, (next) => (next[POS + command.item] = EATEN), `You eat the ${item.name}. Not bad.`)
}

/** `open X` or `close X`: a door or container in reach; opening a container shows what it holds. */
const openOrClose = (game: Game, state: State, command: CommandOf<'Open' | 'Close'>): Outcome => {
  const ents = game.entities
  const target = ents[command.target]!
  if (reach(game, state, command.target) === undefined) return invalid(state, NO_SUCH)
  if (target.kind !== 'door' && target.kind !== 'container')
    return invalid(state, `That's not something you can ${command._tag === 'Open' ? 'open' : 'close'}.`)
  const s = state[openness(game, command.target)]!
  if (command._tag === 'Close') {
    if (s !== OPEN) return invalid(state, "That's already closed.")
    return change(game, state, (next) => (next[openness(game, command.target)] = CLOSED), `You close the ${target.name}.`)
  }
  if (s === OPEN) return invalid(state, "That's already open.")
  if (s === LOCKED) return invalid(state, 'It seems to be locked.')
  const inside: string[] = []
  const R = game.rooms.length
  if (target.kind === 'container') for (let e = 0; e < ents.length; e++) if (state[POS + e] === R + command.target) inside.push(ents[e]!.name)
  const text = inside.length === 0 ? `You open the ${target.name}.` : `You open the ${target.name}, revealing ${Text.list(inside)}.`
  return change(game, state, (next) => (next[openness(game, command.target)] = OPEN), text)
}

/** `unlock X with K` or `lock X with K`: the matching key in hand. */
const unlockOrLock = (game: Game, state: State, command: CommandOf<'Unlock' | 'Lock'>): Outcome => {
  const ents = game.entities
  const target = ents[command.target]!
  if (reach(game, state, command.target) === undefined) return invalid(state, NO_SUCH)
  const keyReach = reach(game, state, command.key)
  if (keyReach === undefined) return invalid(state, NO_SUCH)
  if (target.kind !== 'door' && target.kind !== 'container') return invalid(state, "That doesn't seem to be something you can unlock.")
  if (keyReach !== 'held') return invalid(state, `You need to be holding the ${ents[command.key]!.name} first.`)
  if (target.key !== command.key) return invalid(state, "That doesn't seem to fit the lock.")
  const s = state[openness(game, command.target)]!
  if (command._tag === 'Unlock') {
    if (s !== LOCKED) return invalid(state, "That doesn't seem to be locked.")
    return change(game, state, (next) => (next[openness(game, command.target)] = CLOSED), `You unlock the ${target.name}.`)
  }
  if (s === LOCKED) return invalid(state, "That's already locked.")
  if (s === OPEN) return invalid(state, `You have to close the ${target.name} first.`)
  return change(game, state, (next) => (next[openness(game, command.target)] = LOCKED), `You lock the ${target.name}.`)
}

/**
 * Applies a parsed command.
 *
 * @category combinators
 * @since 0.1.0
 */
export const apply = (game: Game, state: State, command: Command): Outcome => {
  switch (command._tag) {
    case 'UnknownVerb':
      return invalid(state, "That's not a verb I recognise.")
    case 'UnknownNoun':
      return invalid(state, NO_SUCH)
    case 'Look':
      return same(state, Text.describeRoom(game, state))
    case 'Inventory':
      return same(state, Text.inventory(game, state))
    case 'Examine':
      return reach(game, state, command.target) === undefined ? invalid(state, NO_SUCH) : same(state, Text.examine(game, state, command.target))
    case 'Go':
      return go(game, state, command)
    case 'Take':
      return take(game, state, command)
    case 'Put':
    case 'Insert':
      return place(game, state, command)
    case 'Drop':
      return drop(game, state, command)
    case 'Eat':
      return eat(game, state, command)
    case 'Open':
    case 'Close':
      return openOrClose(game, state, command)
    case 'Unlock':
    case 'Lock':
      return unlockOrLock(game, state, command)
  }
}

/**
 * Parses and applies a command. After the episode ended every command is invalid.
 *
 * @example
 * import { Generator, Rules } from '@mtrl/env-textworld'
 * const game = Generator.generateOrThrow({ rooms: 2, objects: 3, questLength: 4, seed: 7 })
 * const out = Rules.step(game)(game.initial, 'look')
 *
 * @category combinators
 * @since 0.1.0
 */
export const step =
  (game: Game) =>
  (state: State, text: string): Outcome =>
    state[OUTCOME] !== 0 ? invalid(state, 'The game is over.') : apply(game, state, parse(game)(text))

/**
 * The commands that are valid in a state, sorted (as TextWorld's admissible commands); empty
 * once the episode has ended.
 *
 * @category destructors
 * @since 0.1.0
 */
export const admissible = (game: Game, state: State): string[] => {
  if (state[OUTCOME] !== 0) return []
  const out: string[] = ['inventory', 'look']
  const ents = game.entities
  const R = game.rooms.length
  const N = ents.length
  const room = state[PLAYER]!
  for (let d = 0; d < 4; d++) {
    if (game.exits[4 * room + d]! < 0) continue
    const door = game.doors[4 * room + d]!
    if (door < 0 || state[POS + N + door] === OPEN) out.push(`go ${DIRECTIONS[d]!}`)
  }
  const held: number[] = []
  for (let e = 0; e < N; e++) if (ents[e]!.kind === 'item' && state[POS + e] === CARRIED) held.push(e)
  for (let e = 0; e < N; e++) {
    const where = reach(game, state, e)
    if (where === undefined) continue
    const entity = ents[e]!
    const name = entity.name
    out.push(`examine ${name}`)
    if (entity.kind === 'item') {
      if (where === 'here') {
        const p = state[POS + e]!
        out.push(p < R ? `take ${name}` : `take ${name} from ${ents[p - R]!.name}`)
      } else {
        out.push(`drop ${name}`)
        if (entity.edible) out.push(`eat ${name}`)
      }
      continue
    }
    if (entity.kind === 'supporter') {
      for (const x of held) out.push(`put ${ents[x]!.name} on ${name}`)
      continue
    }
    const s = state[POS + N + e]!
    if (s === OPEN) {
      out.push(`close ${name}`)
      if (entity.kind === 'container') for (const x of held) out.push(`insert ${ents[x]!.name} into ${name}`)
    } else if (s === CLOSED) out.push(`open ${name}`)
    if (entity.key >= 0 && state[POS + entity.key] === CARRIED) {
      if (s === LOCKED) out.push(`unlock ${name} with ${ents[entity.key]!.name}`)
      else if (s === CLOSED) out.push(`lock ${name} with ${ents[entity.key]!.name}`)
    }
  }
  return out.sort()
}
