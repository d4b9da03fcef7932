/**
 * The seed of a slot's `index`-th episode (see `Rollout.seedOf`).
 */

/** The seed of the `index`-th episode a slot of group `group` plays. */
export const seedOf = (seeds: ReadonlyArray<number>, group: number, index: number): number => {
  const base = seeds[group]
  if (base === undefined) throw new RangeError(`Rollout: no seed for group ${group}`)
  return index === 0 ? base : (base + index * 1_000_003) % 2147483647
}
