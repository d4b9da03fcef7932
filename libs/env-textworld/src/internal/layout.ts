/**
 * A random tree of rooms on a square grid of side ceil(sqrt(rooms + 1)), grown from a random
 * cell (TextWorld's `make_map` lays rooms out the same way). Exits are north/south/east/west.
 */
import type { Rng } from '@mtrl/core'
type Random = Rng.Rng

export interface Layout {
  readonly xy: ReadonlyArray<readonly [number, number]>
  /** exits[4 * room + dir]: neighbouring room or -1 (0 north, 1 south, 2 east, 3 west). */
  readonly exits: Int16Array
  /** Each connection once: [room, dir, neighbour]. */
  readonly edges: ReadonlyArray<readonly [number, number, number]>
}

const DX = [0, 0, 1, -1] as const
const DY = [-1, 1, 0, 0] as const

/** The direction opposite to `d`. */
export const opposite = (d: number): number => d ^ 1

export const grow = (rng: Random, rooms: number): Layout => {
  const side = Math.ceil(Math.sqrt(rooms + 1))
  const cell = new Int32Array(side * side).fill(-1)
  const xy: Array<readonly [number, number]> = []
  const exits = new Int16Array(4 * rooms).fill(-1)
  const edges: Array<readonly [number, number, number]> = []
  const start = rng.int(side * side)
  cell[start] = 0
  xy.push([start % side, Math.floor(start / side)])
  while (xy.length < rooms) {
    const from = rng.int(xy.length)
    const d = rng.int(4)
    const [x0, y0] = xy[from]!
    const x = x0 + DX[d]!
    const y = y0 + DY[d]!
    if (x < 0 || y < 0 || x >= side || y >= side || cell[y * side + x] !== -1) continue
    const room = xy.length
    cell[y * side + x] = room
    xy.push([x, y])
    exits[4 * from + d] = room
    exits[4 * room + opposite(d)] = from
    edges.push([from, d, room])
  }
  return { xy, exits, edges }
}
