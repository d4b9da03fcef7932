/**
 * Links the training samples of each episode into one estimator row of action tokens, runs the
 * advantage estimator on those rows and scatters the result back to the samples.
 *
 * One row per episode holds only that episode's action tokens, in order, each tagged with its
 * turn. Estimators of the GAE family skip non-action tokens anyway (verl's skipping GAE), so
 * dropping them changes nothing in `full` memory; in `window` memory it is what links the
 * per-turn samples of one episode (turn-level estimators see the whole episode). Group
 * estimators see one row per episode, hence one outcome per episode.
 */
import type { TokenBatch } from '@mtrl/advantages'
import type { Batch } from '@mtrl/rollout'

export interface LinkInput {
  readonly batch: Batch.Batch
  /** For each episode, its sample rows in turn order. */
  readonly episodes: ReadonlyArray<{
    readonly rows: ReadonlyArray<number>
    readonly turnRewards: ReadonlyArray<number>
    readonly groupId: string
    /** Bootstrap the return after the last action from `valuesAfter` (a cut, not an end). */
    readonly bootstrap: boolean
    /** Window memory: sample k is turn k. Full memory: turns come from `batch.turnIndex`. */
    readonly windowed: boolean
  }>
  /** `[batch, time]`: extra per-token reward (e.g. -beta KL), read on action tokens. */
  readonly tokenPenalty?: Float32Array
  /** `[batch, time]`: V of the state each token is sampled in, read on action tokens. */
  readonly values?: Float32Array
  /** `[batch, time]`: V after reading tokens <= t (for the bootstrap of episodes that were cut). */
  readonly valuesAfter?: Float32Array
}

export const link = (input: LinkInput, estimator: (batch: TokenBatch.TokenBatch) => TokenBatch.Estimate): { readonly advantages: Float32Array; readonly returns: Float32Array } => {
  const { batch, episodes } = input
  const T = batch.time
  const positions = episodes.map((episode) => {
    const out: Array<{ readonly at: number; readonly turn: number }> = []
    episode.rows.forEach((row, k) => {
      for (let t = 0; t < T; t++) {
        const at = row * T + t
        if (batch.actionMask[at] === 1) out.push({ at, turn: episode.windowed ? k : batch.turnIndex[at]! })
      }
    })
    return out
  })
  const time = positions.reduce((m, p) => Math.max(m, p.length), 0)
  const n = episodes.length
  const tokenRewards = new Float32Array(n * time)
  const responseMask = new Float32Array(n * time)
  const turnIndex = new Int32Array(n * time).fill(-1)
  const values = input.values === undefined ? undefined : new Float32Array(n * time)
  const bootstrapValues = new Float32Array(n)
  episodes.forEach((episode, e) => {
    const ps = positions[e]!
    const lastOfTurn = new Map<number, number>()
    ps.forEach(({ at, turn }, j) => {
      const i = e * time + j
      responseMask[i] = 1
      turnIndex[i] = turn
      tokenRewards[i] = input.tokenPenalty?.[at] ?? 0
      if (values !== undefined) values[i] = input.values![at]!
      lastOfTurn.set(turn, i)
    })
    episode.turnRewards.forEach((r, turn) => {
      const i = lastOfTurn.get(turn)
      if (i === undefined) {
        if (r !== 0) throw new Error(`link: turn ${turn} has a reward but no action tokens`)
        return
      }
      tokenRewards[i] = tokenRewards[i]! + r
    })
    const last = ps[ps.length - 1]
    if (episode.bootstrap && input.valuesAfter !== undefined && last !== undefined) {
      const row = Math.floor(last.at / T)
      bootstrapValues[e] = input.valuesAfter[row * T + batch.lengths[row]! - 1]!
    }
  })
  const estimate = estimator({
    batch: n,
    time,
    tokenRewards,
    responseMask,
    turnIndex,
    groupIds: episodes.map((e) => e.groupId),
    bootstrapValues,
    ...(values === undefined ? {} : { values })
  })
  const advantages = new Float32Array(batch.batch * T)
  const returns = new Float32Array(batch.batch * T)
  positions.forEach((ps, e) =>
    ps.forEach(({ at }, j) => {
      advantages[at] = estimate.advantages[e * time + j]!
      returns[at] = estimate.returns[e * time + j]!
    })
  )
  return { advantages, returns }
}
