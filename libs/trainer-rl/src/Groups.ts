/**
 * Group bookkeeping for group-relative estimators (GRPO, RLOO): integrity checks, because a
 * broken group id silently turns GRPO into REINFORCE (Search-R1#88), and zero-variance filtering,
 * because a group whose members all scored the same carries no learning signal (SkyRL's
 * `zero_variance_filter`, RAGEN's StarPO-S, DAPO's dynamic sampling).
 *
 * @since 0.1.0
 */
import type { Trajectory } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'

/**
 * Checks that every group has exactly `groupSize` members, that the members of a group share
 * env and seed, and that one (env, seed) never spans two group ids.
 *
 * @category destructors
 * @since 0.1.0
 */
export const check =
  (groupSize: number) =>
  (trajectories: ReadonlyArray<Pick<Trajectory.Trajectory, 'env' | 'seed' | 'groupId'>>): E.Either<string, void> => {
    const members = new Map<string, number>()
    const task = new Map<string, string>()
    const idOfTask = new Map<string, string>()
    for (const [i, trajectory] of trajectories.entries()) {
      const key = `${trajectory.env}\u0000${trajectory.seed}`
      members.set(trajectory.groupId, (members.get(trajectory.groupId) ?? 0) + 1)
      const known = task.get(trajectory.groupId)
      if (known !== undefined && known !== key)
        return E.left(`trajectory ${i}: group ${trajectory.groupId} mixes tasks (env ${trajectory.env}, seed ${trajectory.seed})`)
      task.set(trajectory.groupId, key)
      const id = idOfTask.get(key)
      if (id !== undefined && id !== trajectory.groupId)
        return E.left(`trajectory ${i}: env ${trajectory.env} seed ${trajectory.seed} appears under group ids ${id} and ${trajectory.groupId}`)
      idOfTask.set(key, trajectory.groupId)
    }
    for (const [id, count] of members)
      if (count !== groupSize) return E.left(`group ${id} has ${count} members, expected ${groupSize}`)
    return E.right(undefined)
  }

/**
 * Which rows to keep: false for every member of a group whose outcomes are all equal (within
 * `tolerance`). Groups of one are kept.
 *
 * @param groupIds one per row
 * @param outcomes one per row (e.g. the episode's total reward)
 * @category destructors
 * @since 0.1.0
 */
export const nonDegenerate = (groupIds: ReadonlyArray<string>, outcomes: ArrayLike<number>, tolerance = 1e-8): ReadonlyArray<boolean> => {
  const range = new Map<string, [number, number, number]>()
  groupIds.forEach((id, i) => {
    const x = outcomes[i]!
    const r = range.get(id)
    range.set(id, r === undefined ? [x, x, 1] : [Math.min(r[0], x), Math.max(r[1], x), r[2] + 1])
  })
  return groupIds.map((id) => {
    const [lo, hi, n] = range.get(id)!
    return n === 1 || hi - lo > tolerance
  })
}

/**
 * Caps a selection at its first `groups` groups (in order of first appearance): rows of later
 * selected groups turn false. With `nonDegenerate`, DAPO's dynamic sampling (verl's
 * `filter_groups`): play more groups than an update takes, keep the first ones that carry signal.
 *
 * @param keep one per row (e.g. `nonDegenerate`'s answer)
 * @param groupIds one per row
 * @category destructors
 * @since 0.1.0
 */
export const firstGroups = (groups: number, keep: ReadonlyArray<boolean>, groupIds: ReadonlyArray<string>): ReadonlyArray<boolean> => {
  const taken = new Set<string>()
  return groupIds.map((id, i) => {
    if (!keep[i]) return false
    if (taken.has(id)) return true
    if (taken.size >= groups) return false
    taken.add(id)
    return true
  })
}
