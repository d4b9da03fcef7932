/**
 * Room layouts: for each room kind a fixed, numbered list of distinct receptacle sets (how
 * many cabinets, drawers, shelves, ... and which optional furniture). Layouts are derived from
 * a constant seed, so they are the same in every run and every version of this file that keeps
 * the catalog.
 */
import { Rng } from '@mtrl/core'
import { roomKinds, roomSpecs, type RoomKind } from './catalog.js'

/** Number of layouts per room kind. */
export const layoutsPerRoom = 16

/** A room's receptacles: types in catalog order, one entry per instance. */
export interface Layout {
  readonly room: RoomKind
  readonly id: number
  readonly receptacles: ReadonlyArray<string>
  /** `kitchen:cabinet*4,coffeemachine*1,...`: equal signatures mean equal layouts. */
  readonly signature: string
}

const build = (room: RoomKind): ReadonlyArray<Layout> => {
  const rng = Rng.make(0x1a7f00 + roomKinds.indexOf(room))
  const out: Layout[] = []
  const seen = new Set<string>()
  while (out.length < layoutsPerRoom) {
    const counts = roomSpecs[room].receptacles.map(([type, min, max]) => [type, min + rng.int(max - min + 1)] as const)
    const signature = `${room}:${counts
      .filter(([, n]) => n > 0)
      .map(([type, n]) => `${type}*${n}`)
      .join(',')}`
    if (seen.has(signature)) continue
    seen.add(signature)
    out.push({ room, id: out.length, receptacles: counts.flatMap(([type, n]) => Array.from({ length: n }, () => type)), signature })
  }
  return out
}

const all: Readonly<Record<RoomKind, ReadonlyArray<Layout>>> = {
  kitchen: build('kitchen'),
  livingroom: build('livingroom'),
  bedroom: build('bedroom'),
  bathroom: build('bathroom')
}

export const layout = (room: RoomKind, id: number): Layout => {
  const found = all[room][id]
  if (found === undefined) throw new RangeError(`layouts: no layout ${id} for ${room}`)
  return found
}
