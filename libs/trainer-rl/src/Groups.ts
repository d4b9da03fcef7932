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
    for (const [id, count] of members) if (count !== groupSize) return E.left(`group ${id} has ${count} members, expected ${groupSize}`)
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

/**
 * Which `m` members of a group of outcomes vary most: the `k` highest and `m - k` lowest for
 * the `k` in 0..m whose selection has the largest variance (PODS, Xu et al. 2025, "Not All
 * Rollouts are Useful: Down-Sampling Rollouts in LLM Reinforcement Learning",
 * https://arxiv.org/abs/2504.13818, shows the max-variance subset has that shape). Ties keep
 * the earlier row. Answers the indices into `outcomes`, ascending; all of them when `m` >=
 * their number.
 *
 * @category destructors
 * @since 0.1.0
 */
export const maxVarianceSubset = (m: number, outcomes: ReadonlyArray<number>): ReadonlyArray<number> => {
  const n = outcomes.length
  if (m >= n) return outcomes.map((_, i) => i)
  if (m <= 0) return []
  const order = outcomes.map((x, i) => ({ x, i })).sort((a, b) => a.x - b.x || a.i - b.i)
  const variance = (xs: ReadonlyArray<number>): number => {
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length
    return xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length
  }
  let best: ReadonlyArray<{ x: number; i: number }> = order.slice(0, m)
  let bestVariance = variance(best.map((o) => o.x))
  for (let k = 1; k <= m; k++) {
    const pick = [...order.slice(0, m - k), ...order.slice(n - k)]
    const v = variance(pick.map((o) => o.x))
    if (v > bestVariance + 1e-12) {
      best = pick
      bestVariance = v
    }
  }
  return best.map((o) => o.i).sort((a, b) => a - b)
}

/**
 * Caps each group at `m` members: of the rows `keep` selects, each group keeps the `m` whose
 * outcomes vary most ({@link maxVarianceSubset}); rows `keep` dropped stay dropped. PODS's
 * down-sampling: play large groups, whose rollouts are cheap, and update on the informative
 * part of each, whose update is what costs (the estimator then compares the kept members).
 *
 * @param keep one per row (e.g. all true, or `firstGroups`'s answer)
 * @param groupIds one per row
 * @param outcomes one per row (e.g. the episode's total reward)
 * @category destructors
 * @since 0.1.0
 */
export const downsample = (m: number, keep: ReadonlyArray<boolean>, groupIds: ReadonlyArray<string>, outcomes: ArrayLike<number>): ReadonlyArray<boolean> => {
  const rowsOf = new Map<string, number[]>()
  groupIds.forEach((id, i) => {
    if (!keep[i]) return
    const rows = rowsOf.get(id)
    if (rows === undefined) rowsOf.set(id, [i])
    else rows.push(i)
  })
  const out = groupIds.map(() => false)
  for (const rows of rowsOf.values())
    for (const j of maxVarianceSubset(
      m,
      rows.map((i) => outcomes[i]!)
    ))
      out[rows[j]!] = true
  return out
}
