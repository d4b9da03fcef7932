/**
 * The one path from episodes to an estimator's input ({@link TokenBatch}) and back: one row per
 * episode, holding that episode's action tokens in order, each with its turn, its reward (a
 * turn's reward on the turn's last action token, as the paper places it on the action's
 * `<eos>`), the critic's value, and the episode's group. Used by `@mtrl/trainer-rl` for every
 * update and by `mtrl advantages --trajectories`.
 *
 * Prompt and observation tokens are left out of the rows. That changes no estimate: the GAE
 * family skips them (verl's skipping GAE: no TD step, no decay across an observation), outcome
 * estimators only sum rewards, and rewards live on action tokens. It is also what links the
 * per-turn samples of `window` memory into one episode, so turn-level estimators see the whole
 * episode and group estimators one outcome per episode.
 *
 * @since 0.2.0
 */
import { Trajectory } from '@mtrl/core'
import { assertValid, type TokenBatch } from './TokenBatch.js'

/**
 * One episode.
 *
 * - `samples`: its token sequences in turn order: `[trajectory]` in full memory, one per turn
 *   in window memory. The turn of an action token is its segment's turn plus the number of turns
 *   of the samples before it;
 * - `turnRewards`: one reward per turn of the episode;
 * - `groupId`: episodes that answer the same task share it (GRPO, RLOO);
 * - `bootstrapValue`: V of the state after the last action, for an episode that was cut rather
 *   than ended (0 or absent: it ended, nothing follows);
 * - `values`: per sample, per token: V of the state in which the token is sampled; read on
 *   action tokens;
 * - `tokenRewards`: per sample, per token: reward added to that token (e.g. `-beta * KL`); read
 *   on action tokens.
 *
 * @category models
 * @since 0.2.0
 */
export interface Episode {
  readonly samples: ReadonlyArray<Trajectory.Trajectory>
  readonly turnRewards: ReadonlyArray<number>
  readonly groupId: string
  readonly bootstrapValue?: number
  readonly values?: ReadonlyArray<ArrayLike<number>>
  readonly tokenRewards?: ReadonlyArray<ArrayLike<number>>
}

/**
 * The estimator's input and where each entry came from: entry `j` of row `e` is token
 * `sources[e].token[j]` of sample `sources[e].sample[j]` of episode `e`.
 *
 * @category models
 * @since 0.2.0
 */
export interface Rows {
  readonly batch: TokenBatch
  readonly sources: ReadonlyArray<{ readonly sample: Int32Array; readonly token: Int32Array }>
}

interface Entry {
  readonly sample: number
  readonly token: number
  readonly turn: number
}

const entriesOf = (episode: Episode, e: number): ReadonlyArray<Entry> => {
  const out: Entry[] = []
  let turns = 0
  episode.samples.forEach((sample, s) => {
    const mask = Trajectory.actionMask(sample)
    const turn = Trajectory.turnIndex(sample)
    for (let t = 0; t < mask.length; t++) if (mask[t] === 1) out.push({ sample: s, token: t, turn: turns + turn[t]! })
    turns += sample.turns.length
    const values = episode.values?.[s]
    if (values !== undefined && values.length < mask.length)
      throw new Error(`EpisodeRows.make: episode ${e} sample ${s}: ${values.length} values for ${mask.length} tokens`)
    const rewards = episode.tokenRewards?.[s]
    if (rewards !== undefined && rewards.length < mask.length)
      throw new Error(`EpisodeRows.make: episode ${e} sample ${s}: ${rewards.length} token rewards for ${mask.length} tokens`)
  })
  if (turns !== episode.turnRewards.length) throw new Error(`EpisodeRows.make: episode ${e} has ${turns} turns but ${episode.turnRewards.length} turn rewards`)
  return out
}

/**
 * Builds the rows. Throws (a programmer error) when an episode's turn rewards do not match its
 * turns, a turn with a non-zero reward has no action token, or `values` / `tokenRewards` are
 * shorter than their sample.
 *
 * @example
 * import { EpisodeRows, Gae } from '@mtrl/advantages'
 * declare const trajectories: ReadonlyArray<import('@mtrl/core').Trajectory.Trajectory>
 * const rows = EpisodeRows.make(trajectories.map((t) => ({ samples: [t], turnRewards: t.turnRewards, groupId: t.groupId })))
 * const estimate = Gae.estimate(Gae.defaultOptions)(rows.batch)
 *
 * @category constructors
 * @since 0.2.0
 */
export const make = (episodes: ReadonlyArray<Episode>): Rows => {
  const entries = episodes.map(entriesOf)
  const time = entries.reduce((m, xs) => Math.max(m, xs.length), 0)
  const n = episodes.length
  const tokenRewards = new Float32Array(n * time)
  const actionMask = new Float32Array(n * time)
  const turnIndex = new Int32Array(n * time).fill(-1)
  const withValues = episodes.some((e) => e.values !== undefined)
  const values = withValues ? new Float32Array(n * time) : undefined
  const bootstrapValues = new Float32Array(n)
  const sources = entries.map((xs, e) => {
    const episode = episodes[e]!
    const lastOfTurn = new Map<number, number>()
    xs.forEach(({ sample, token, turn }, j) => {
      const i = e * time + j
      actionMask[i] = 1
      turnIndex[i] = turn
      tokenRewards[i] = episode.tokenRewards?.[sample]?.[token] ?? 0
      if (values !== undefined) values[i] = episode.values?.[sample]?.[token] ?? 0
      lastOfTurn.set(turn, i)
    })
    episode.turnRewards.forEach((r, turn) => {
      const i = lastOfTurn.get(turn)
      if (i === undefined) {
        if (r !== 0) throw new Error(`EpisodeRows.make: episode ${e} turn ${turn} has reward ${r} but no action token`)
        return
      }
      tokenRewards[i] = tokenRewards[i]! + r
    })
    bootstrapValues[e] = episode.bootstrapValue ?? 0
    return { sample: Int32Array.from(xs, (x) => x.sample), token: Int32Array.from(xs, (x) => x.token) }
  })
  const batch: TokenBatch = {
    batch: n,
    time,
    tokenRewards,
    actionMask,
    turnIndex,
    groupIds: episodes.map((e) => e.groupId),
    bootstrapValues,
    ...(values === undefined ? {} : { values })
  }
  assertValid('EpisodeRows.make', batch)
  return { batch, sources }
}

/**
 * Writes a row-shaped result (`[batch, time]` of {@link Rows.batch}, e.g. advantages) back onto
 * the tokens it came from: `targets[e][s]` receives, at each action token of sample `s` of
 * episode `e`, that token's entry. Other positions of the targets are left as they are.
 *
 * @example
 * import { EpisodeRows, Gae } from '@mtrl/advantages'
 * declare const rows: EpisodeRows.Rows
 * declare const lengths: ReadonlyArray<ReadonlyArray<number>>
 * const advantages = lengths.map((sample) => sample.map((n) => new Float32Array(n)))
 * EpisodeRows.scatter(rows, Gae.estimate(Gae.defaultOptions)(rows.batch).advantages)(advantages)
 *
 * @category destructors
 * @since 0.2.0
 */
export const scatter =
  (rows: Rows, values: Float32Array) =>
  (targets: ReadonlyArray<ReadonlyArray<Float32Array>>): void => {
    const { time } = rows.batch
    rows.sources.forEach(({ sample, token }, e) => {
      for (let j = 0; j < sample.length; j++) targets[e]![sample[j]!]![token[j]!] = values[e * time + j]!
    })
  }
