/**
 * The words of the game, in TextWorld's manner: room banners (`-= Kitchen =-`), descriptions
 * of what is visible and where the exits lead, the inventory, and the objective (a
 * walkthrough-like series of instructions, as TextWorld's generated `game.objective`).
 *
 * All texts are pure functions of the game and the state, so the same seed gives the same
 * texts.
 *
 * @since 0.1.0
 */
import { Rng as R } from '@mtrl/core'
import { CARRIED, CLOSED, DIRECTIONS, LOCKED, OPEN, PLAYER, POS, status, type Game, type State } from './Game.js'

const massNouns: ReadonlySet<string> = new Set(['milk', 'bread', 'cheese'])

/**
 * `a`, `an` or `some` for a name.
 *
 * @category utils
 * @since 0.1.0
 */
export const article = (name: string): string => (massNouns.has(name) ? 'some' : /^[aeiou]/i.test(name) ? 'an' : 'a')

/** `an apple` */
const withArticle = (name: string): string => `${article(name)} ${name}`

/**
 * `an apple, a hat and a shoe`.
 *
 * @category utils
 * @since 0.1.0
 */
export const list = (names: ReadonlyArray<string>): string => {
  const items = names.map(withArticle)
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]!}`
}

const capitalize = (s: string): string => (s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1))

/**
 * The banner of a room: `-= Living Room =-`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const banner = (name: string): string => `-= ${name.split(' ').map(capitalize).join(' ')} =-`

const contents = (game: Game, state: State, holder: number): string[] => {
  const code = game.rooms.length + holder
  const out: string[] = []
  const n = game.entities.length
  for (let e = 0; e < n; e++) if (state[POS + e] === code) out.push(game.entities[e]!.name)
  return out
}

/**
 * What the player sees in the current room (TextWorld's answer to `look`).
 *
 * @category destructors
 * @since 0.1.0
 */
export const describeRoom = (game: Game, state: State): string => {
  const room = state[PLAYER]!
  const info = game.rooms[room]!
  const things: string[] = []
  const entities = game.entities
  for (let e = 0; e < entities.length; e++) {
    const entity = entities[e]!
    if (entity.room !== room) continue
    if (entity.kind === 'container') {
      if (status(game, state, e) !== OPEN) {
        things.push(`You can see a closed ${entity.name}.`)
      } else {
        const inside = contents(game, state, e)
        things.push(
          inside.length === 0
            ? `You see an opened ${entity.name}, but there is nothing in it.`
            : `You see an opened ${entity.name}. The ${entity.name} contains ${list(inside)}.`
        )
      }
    } else if (entity.kind === 'supporter') {
      const on = contents(game, state, e)
      things.push(
        on.length === 0
          ? `You make out ${withArticle(entity.name)}, but there isn't a thing on it.`
          : `You make out ${withArticle(entity.name)}. On the ${entity.name} you can see ${list(on)}.`
      )
    }
  }
  const floor: string[] = []
  for (let e = 0; e < entities.length; e++) if (state[POS + e] === room && entities[e]!.kind === 'item') floor.push(entities[e]!.name)
  if (floor.length > 0) things.push(`There is ${list(floor)} on the floor.`)
  const exits: string[] = []
  for (let d = 0; d < 4; d++) {
    if (game.exits[4 * room + d]! < 0) continue
    const door = game.doors[4 * room + d]!
    if (door < 0) exits.push(`There is an exit to the ${DIRECTIONS[d]!}.`)
    else {
      const s = status(game, state, door)
      exits.push(`There is ${s === OPEN ? 'an open' : 'a closed'} ${game.entities[door]!.name} leading ${DIRECTIONS[d]!}.`)
    }
  }
  const parts = [banner(info.name), info.intro]
  if (things.length > 0) parts.push(things.join(' '))
  parts.push(exits.length > 0 ? exits.join(' ') : 'There is no way out of here.')
  return parts.join('\n')
}

/**
 * The answer to `inventory`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const inventory = (game: Game, state: State): string => {
  const held: string[] = []
  for (let e = 0; e < game.entities.length; e++) if (state[POS + e] === CARRIED) held.push(`  ${withArticle(game.entities[e]!.name)}`)
  return held.length === 0 ? 'You are carrying nothing.' : `You are carrying:\n${held.join('\n')}`
}

/**
 * The answer to `examine X`.
 *
 * @category destructors
 * @since 0.1.0
 */
export const examine = (game: Game, state: State, e: number): string => {
  const entity = game.entities[e]!
  if (entity.description !== '') return entity.description
  switch (entity.kind) {
    case 'door':
    case 'container': {
      const s = status(game, state, e)
      const word = s === OPEN ? 'open' : s === CLOSED ? 'closed' : 'locked'
      return `The ${entity.name} is sturdy. It is ${word}.`
    }
    case 'supporter': {
      const on = contents(game, state, e)
      return on.length === 0 ? `The ${entity.name} is solid. There is nothing on it.` : `The ${entity.name} is solid. On it you see ${list(on)}.`
    }
    case 'item':
      return entity.isKey
        ? `The ${entity.name} looks useful for opening a lock.`
        : entity.edible
          ? `The ${entity.name} looks edible.`
          : `The ${entity.name} looks like an ordinary ${entity.name}.`
  }
}

const firsts = ['First thing I need you to do is to', 'First off, I need you to', 'Your first objective is to']
const thens = ['Then,', 'And then,', 'After that,', 'Next,', 'With that over with,', 'Once you have done that,']
const lasts = ['Finally,', 'And to finish,', 'Lastly,']

const phrase = (rng: R.Rng, command: string): string => {
  const pick = R.pick(rng)
  let m: RegExpExecArray | null
  if ((m = /^go (\w+)$/.exec(command)) !== null) return pick([`move ${m[1]!}`, `go ${m[1]!}`, `venture ${m[1]!}`, `make an attempt to go to the ${m[1]!}`])
  if ((m = /^take (.+) from (.+)$/.exec(command)) !== null)
    return pick([`take the ${m[1]!} from the ${m[2]!}`, `recover the ${m[1]!} from the ${m[2]!}`, `retrieve the ${m[1]!} from the ${m[2]!}`])
  if ((m = /^take (.+)$/.exec(command)) !== null) return pick([`take the ${m[1]!}`, `pick up the ${m[1]!}`, `grab the ${m[1]!}`])
  if ((m = /^open (.+)$/.exec(command)) !== null) return pick([`open the ${m[1]!}`, `make it so that the ${m[1]!} is open`])
  if ((m = /^unlock (.+) with (.+)$/.exec(command)) !== null) return pick([`unlock the ${m[1]!} with the ${m[2]!}`, `use the ${m[2]!} to unlock the ${m[1]!}`])
  if ((m = /^put (.+) on (.+)$/.exec(command)) !== null)
    return pick([`put the ${m[1]!} on the ${m[2]!}`, `place the ${m[1]!} on the ${m[2]!}`, `rest the ${m[1]!} on the ${m[2]!}`])
  if ((m = /^insert (.+) into (.+)$/.exec(command)) !== null)
    return pick([`insert the ${m[1]!} into the ${m[2]!}`, `put the ${m[1]!} into the ${m[2]!}`, `place the ${m[1]!} inside the ${m[2]!}`])
  if ((m = /^eat (.+)$/.exec(command)) !== null) return pick([`eat the ${m[1]!}`, `consume the ${m[1]!}`])
  return command
}

/**
 * The step-by-step objective: one instruction per walkthrough command, joined by varied
 * connectives as in TextWorld's generated objectives ("First thing I need you to do is to
 * move south. Then, venture east. ...").
 *
 * @category constructors
 * @since 0.1.0
 */
export const stepByStep = (rng: R.Rng, walkthrough: ReadonlyArray<string>): string => {
  const pick = R.pick(rng)
  if (walkthrough.length === 1) return `Your objective is to ${phrase(rng, walkthrough[0]!)}. Once that's done, you win!`
  const sentences = walkthrough.map((command, i) => {
    const lead = i === 0 ? pick(firsts) : i === walkthrough.length - 1 ? pick(lasts) : pick(thens)
    return `${lead} ${phrase(rng, command)}.`
  })
  return `${sentences.join(' ')} Once that's done, you win!`
}

/**
 * The final goal only: "Your objective is to put the hat on the shelf in the attic."
 *
 * @category constructors
 * @since 0.1.0
 */
export const brief = (finalCommand: string, roomName: string | undefined): string => {
  const text = phrase(R.make(0), finalCommand)
  return roomName === undefined ? `Your objective is to ${text}.` : `Your objective is to ${text} in the ${roomName}.`
}

/** Names of the door/container statuses, for messages. @category constants @since 0.1.0 */
export const statusWord = (s: number): string => (s === OPEN ? 'open' : s === LOCKED ? 'locked' : 'closed')
