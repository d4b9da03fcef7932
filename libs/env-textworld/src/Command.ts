/**
 * The command grammar of TextWorld's house games, parsed leniently: case, extra whitespace,
 * a leading "the" and a trailing period do not matter; `n`/`north`, `i`, `l`, `x X` and
 * `put X in Y` are accepted as aliases. Names resolve against the game's entities.
 *
 * Grammar: go <dir> | take X | take X from Y | put X on Y | insert X into Y | drop X | open X |
 * close X | unlock X with K | lock X with K | eat X | examine X | look | inventory.
 *
 * @since 0.1.0
 */
import type { Game } from './Game.js'

/**
 * A parsed command. Entities are indices into `game.entities`.
 *
 * @category models
 * @since 0.1.0
 */
export type Command =
  | { readonly _tag: 'Look' }
  | { readonly _tag: 'Inventory' }
  | { readonly _tag: 'Go'; readonly dir: number }
  | { readonly _tag: 'Examine'; readonly target: number }
  | { readonly _tag: 'Take'; readonly item: number; readonly from: number }
  | { readonly _tag: 'Put'; readonly item: number; readonly holder: number }
  | { readonly _tag: 'Insert'; readonly item: number; readonly holder: number }
  | { readonly _tag: 'Drop'; readonly item: number }
  | { readonly _tag: 'Open'; readonly target: number }
  | { readonly _tag: 'Close'; readonly target: number }
  | { readonly _tag: 'Unlock'; readonly target: number; readonly key: number }
  | { readonly _tag: 'Lock'; readonly target: number; readonly key: number }
  | { readonly _tag: 'Eat'; readonly item: number }
  | { readonly _tag: 'UnknownVerb' }
  | { readonly _tag: 'UnknownNoun' }

const dirs: Readonly<Record<string, number>> = { north: 0, n: 0, south: 1, s: 1, east: 2, e: 2, west: 3, w: 3 }

const LOOK: Command = { _tag: 'Look' }
const INVENTORY: Command = { _tag: 'Inventory' }
const UNKNOWN_VERB: Command = { _tag: 'UnknownVerb' }
const UNKNOWN_NOUN: Command = { _tag: 'UnknownNoun' }

/**
 * Lower-case, single spaces, no trailing period / exclamation mark.
 *
 * @category utils
 * @since 0.1.0
 */
export const normalize = (text: string): string => {
  let s = text.trim().toLowerCase()
  while (s.endsWith('.') || s.endsWith('!')) s = s.slice(0, -1).trimEnd()
  return s.includes('  ') || s.includes('\t') || s.includes('\n') ? s.split(/\s+/).join(' ') : s
}

const entity = (game: Game, name: string): number => {
  const direct = game.byName.get(name)
  if (direct !== undefined) return direct
  return name.startsWith('the ') ? (game.byName.get(name.slice(4)) ?? -1) : -1
}

const split2 = (rest: string, sep: string): readonly [string, string] | undefined => {
  const at = rest.indexOf(sep)
  return at < 0 ? undefined : [rest.slice(0, at), rest.slice(at + sep.length)]
}

const one = (game: Game, name: string, make: (e: number) => Command): Command => {
  const e = entity(game, name)
  return e < 0 ? UNKNOWN_NOUN : make(e)
}

const two = (game: Game, a: string, b: string, make: (x: number, y: number) => Command): Command => {
  const x = entity(game, a)
  const y = entity(game, b)
  return x < 0 || y < 0 ? UNKNOWN_NOUN : make(x, y)
}

/**
 * Parses one command against a game's names.
 *
 * @example
 * import { Command } from '@mtrl/env-textworld'
 * declare const game: import('@mtrl/env-textworld').Game.Game
 * Command.parse(game)('  Take the Apple from table. ')
 *
 * @category constructors
 * @since 0.1.0
 */
export const parse =
  (game: Game) =>
  (text: string): Command => {
    const s = normalize(text)
    if (s === 'look' || s === 'l') return LOOK
    if (s === 'inventory' || s === 'i' || s === 'inv') return INVENTORY
    const bare = dirs[s]
    if (bare !== undefined) return { _tag: 'Go', dir: bare }
    const space = s.indexOf(' ')
    if (space < 0) return UNKNOWN_VERB
    const verb = s.slice(0, space)
    const rest = s.slice(space + 1)
    switch (verb) {
      case 'go': {
        const d = dirs[rest]
        return d === undefined ? UNKNOWN_NOUN : { _tag: 'Go', dir: d }
      }
      case 'take':
      case 'get': {
        const parts = split2(rest, ' from ')
        return parts === undefined
          ? one(game, rest, (item) => ({ _tag: 'Take', item, from: -1 }))
          : two(game, parts[0], parts[1], (item, from) => ({ _tag: 'Take', item, from }))
      }
      case 'put': {
        const on = split2(rest, ' on ')
        if (on !== undefined) return two(game, on[0], on[1], (item, holder) => ({ _tag: 'Put', item, holder }))
        const into = split2(rest, ' into ') ?? split2(rest, ' in ')
        return into === undefined ? UNKNOWN_VERB : two(game, into[0], into[1], (item, holder) => ({ _tag: 'Insert', item, holder }))
      }
      case 'insert': {
        const into = split2(rest, ' into ') ?? split2(rest, ' in ')
        return into === undefined ? UNKNOWN_VERB : two(game, into[0], into[1], (item, holder) => ({ _tag: 'Insert', item, holder }))
      }
      case 'drop':
        return one(game, rest, (item) => ({ _tag: 'Drop', item }))
      case 'open':
        return one(game, rest, (target) => ({ _tag: 'Open', target }))
      case 'close':
        return one(game, rest, (target) => ({ _tag: 'Close', target }))
      case 'unlock':
      case 'lock': {
        const parts = split2(rest, ' with ')
        if (parts === undefined) return UNKNOWN_VERB
        return verb === 'unlock'
          ? two(game, parts[0], parts[1], (target, key) => ({ _tag: 'Unlock', target, key }))
          : two(game, parts[0], parts[1], (target, key) => ({ _tag: 'Lock', target, key }))
      }
      case 'eat':
        return one(game, rest, (item) => ({ _tag: 'Eat', item }))
      case 'examine':
      case 'x':
        return one(game, rest, (target) => ({ _tag: 'Examine', target }))
      default:
        return UNKNOWN_VERB
    }
  }
