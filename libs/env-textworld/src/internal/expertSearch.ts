/**
 * The expert's exact breadth-first search over encoded states (see `expertMoves`): the first
 * state in which the final command succeeds gives a shortest winning plan.
 */
import * as O from 'fp-ts/lib/Option.js'
import type { Encoding, FinalMove, Move } from './expertMoves.js'

/** The digit of `key` whose place value is `mult`. */
const digit = (key: number, mult: number, radix: number): number => Math.floor(key / mult) % radix

/** The state `move` leads to from `key` (the player in local room `room`), or -1 when it cannot be made. */
const successor = (encoding: Encoding, move: Move, key: number, room: number): number => {
  const { itemMult, lockMult } = encoding
  switch (move.kind) {
    case 'go':
      return move.from === room && (move.door < 0 || digit(key, lockMult[move.door]!, 3) === 0) ? key - room + move.to : -1
    case 'open':
    case 'unlock': {
      if ((move.rooms & (1 << room)) === 0) return -1
      const s = digit(key, lockMult[move.lock]!, 3)
      return (move.kind === 'open' ? s === 1 : s === 2 && digit(key, itemMult[move.key]!, 2) === 1) ? key - lockMult[move.lock]! : -1
    }
    case 'take':
      return move.room === room && digit(key, itemMult[move.item]!, 2) === 0 && (move.holder < 0 || digit(key, lockMult[move.holder]!, 3) === 0)
        ? key + itemMult[move.item]!
        : -1
    case 'final':
      return -1
  }
}

/** Whether the final command succeeds in `key`: the goal item carried, in the right room, the target open. */
const finalSucceeds = (encoding: Encoding, final: FinalMove, key: number): boolean =>
  digit(key, encoding.itemMult[0]!, 2) === 1 &&
  (final.room < 0 || key % encoding.nr === final.room) &&
  (final.holder < 0 || digit(key, encoding.lockMult[final.holder]!, 3) === 0)

/** A shortest sequence of `moves` from `start` that ends with `final`, or none. */
export const search = (encoding: Encoding, moves: ReadonlyArray<Move>, final: FinalMove, start: number): O.Option<ReadonlyArray<string>> => {
  const keys: number[] = [start]
  const parent: number[] = [-1]
  const via: number[] = [-1]
  const seen = new Set<number>([start])
  for (let head = 0; head < keys.length; head++) {
    const key = keys[head]!
    if (finalSucceeds(encoding, final, key)) {
      const out: string[] = [final.cmd]
      for (let at = head; parent[at]! >= 0; at = parent[at]!) out.push(moves[via[at]!]!.cmd)
      return O.some(out.reverse())
    }
    const room = key % encoding.nr
    for (let m = 0; m < moves.length; m++) {
      const next = successor(encoding, moves[m]!, key, room)
      if (next >= 0 && !seen.has(next)) {
        seen.add(next)
        keys.push(next)
        parent.push(head)
        via.push(m)
      }
    }
  }
  return O.none
}
