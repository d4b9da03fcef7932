/**
 * What one episode was, token for token: the exact sequence the policy saw, cut into segments
 * with provenance (prompt, observation, action), plus what happened at each turn.
 *
 * Loss is taken on action tokens only; prompt and observation tokens are context. A trajectory
 * is never re-rendered or re-tokenized between turns, so the training tokens are the sampled ones.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'

const isIntArray = (u: unknown): u is ReadonlyArray<number> =>
  Array.isArray(u) && u.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= -2147483648 && x <= 2147483647)
const isNumberArray = (u: unknown): u is ReadonlyArray<number> => Array.isArray(u) && u.every((x) => typeof x === 'number' && !Number.isNaN(x))

/**
 * `Int32Array` <-> JSON array of integers.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Int32ArrayFromArray = new t.Type<Int32Array, ReadonlyArray<number>, unknown>(
  'Int32ArrayFromArray',
  (u): u is Int32Array => u instanceof Int32Array,
  (u, c) => (u instanceof Int32Array ? t.success(u) : isIntArray(u) ? t.success(Int32Array.from(u)) : t.failure(u, c, 'an array of int32')),
  (a) => Array.from(a)
)

/**
 * `Float32Array` <-> JSON array of numbers.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Float32ArrayFromArray = new t.Type<Float32Array, ReadonlyArray<number>, unknown>(
  'Float32ArrayFromArray',
  (u): u is Float32Array => u instanceof Float32Array,
  (u, c) => (u instanceof Float32Array ? t.success(u) : isNumberArray(u) ? t.success(Float32Array.from(u)) : t.failure(u, c, 'an array of numbers')),
  (a) => Array.from(a)
)

/**
 * Where a segment's tokens came from.
 *
 * @category codecs
 * @since 0.1.0
 */
export const SegmentKind = t.keyof({ prompt: null, observation: null, action: null })
/** @category models @since 0.1.0 */
export type SegmentKind = t.TypeOf<typeof SegmentKind>

/**
 * A run of tokens of one provenance. `logprobs` (action segments only) are the sampler's
 * log-probabilities of each token, one per token. `trainable: false` (action segments only)
 * keeps an action in the context but out of every loss, e.g. the deliberate detours of
 * perturbed expert demonstrations. `masks` (action segments of constrained decoding only): per
 * token, the allowed-token bitmask it was drawn under (bit `id % 32` of word `id >> 5` set:
 * allowed), `null` for a token drawn unconstrained; `logprobs` are then the masked
 * distribution's, and a trainer scores those tokens under the same masks.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Segment = t.intersection([
  t.type({ kind: SegmentKind, turn: t.number, tokens: Int32ArrayFromArray }),
  t.partial({ logprobs: Float32ArrayFromArray, trainable: t.boolean, masks: t.readonlyArray(t.union([t.null, Int32ArrayFromArray])) })
])
/** @category models @since 0.1.0 */
export type Segment = t.TypeOf<typeof Segment>

/**
 * What happened at one turn, as the environment reported it.
 *
 * - `action`: the action text sent to the environment (after parsing the reply);
 * - `reward`: the environment's reward for the step (e.g. score delta);
 * - `valid`: the environment understood and could perform the action;
 * - `parsed`: the policy's reply had the required action format;
 * - `score` / `maxScore`: the running score after the step;
 * - `explored` (optional, true only when so): the action was not the policy's sample but an
 *   exploration move (a rollout's `exploreRate`: one of the environment's admissible actions),
 *   written into the context as if the policy had written it.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Turn = t.intersection([
  t.type({
    action: t.string,
    reward: t.number,
    valid: t.boolean,
    parsed: t.boolean,
    score: t.number,
    maxScore: t.number
  }),
  t.partial({ explored: t.boolean })
])
/** @category models @since 0.1.0 */
export type Turn = t.TypeOf<typeof Turn>

/**
 * One episode.
 *
 * - `groupId`: episodes of the same task instance (same env, same seed) share it; group-relative
 *   estimators compare within a group;
 * - `turns[k]` and `turnRewards[k]` describe turn k (`turnRewards` is the environment's reward);
 * - `truncated`: the episode ended by the turn or context budget, not by winning or losing.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Trajectory = t.type({
  env: t.string,
  seed: t.number,
  groupId: t.string,
  segments: t.readonlyArray(Segment),
  turns: t.readonlyArray(Turn),
  turnRewards: t.readonlyArray(t.number),
  won: t.boolean,
  truncated: t.boolean
})
/** @category models @since 0.1.0 */
export type Trajectory = t.TypeOf<typeof Trajectory>

/**
 * Number of tokens over all segments.
 *
 * @category destructors
 * @since 0.1.0
 */
export const length = (trajectory: Trajectory): number => trajectory.segments.reduce((n, segment) => n + segment.tokens.length, 0)

/**
 * The whole token sequence, concatenated.
 *
 * @category destructors
 * @since 0.1.0
 */
export const tokens = (trajectory: Trajectory): Int32Array => {
  const out = new Int32Array(length(trajectory))
  let offset = 0
  for (const segment of trajectory.segments) {
    out.set(segment.tokens, offset)
    offset += segment.tokens.length
  }
  return out
}

/**
 * Float mask over `tokens(trajectory)`: 1 on action tokens (the ones that receive loss; not
 * the ones marked `trainable: false`).
 *
 * @category destructors
 * @since 0.1.0
 */
export const actionMask = (trajectory: Trajectory): Float32Array => {
  const out = new Float32Array(length(trajectory))
  let offset = 0
  for (const segment of trajectory.segments) {
    if (segment.kind === 'action' && segment.trainable !== false) out.fill(1, offset, offset + segment.tokens.length)
    offset += segment.tokens.length
  }
  return out
}

/**
 * Float mask over `tokens(trajectory)`: 1 on the action tokens of explored turns (`Turn.explored`:
 * an exploration move, not the policy's sample), 0 elsewhere. An action segment of turn `k` is
 * the reply of `turns[k]`.
 *
 * @category destructors
 * @since 0.4.0
 */
export const exploredMask = (trajectory: Trajectory): Float32Array => {
  const out = new Float32Array(length(trajectory))
  let offset = 0
  for (const segment of trajectory.segments) {
    if (segment.kind === 'action' && trajectory.turns[segment.turn]?.explored === true) out.fill(1, offset, offset + segment.tokens.length)
    offset += segment.tokens.length
  }
  return out
}

/**
 * Turn index of every token (prompt tokens get -1).
 *
 * @category destructors
 * @since 0.1.0
 */
export const turnIndex = (trajectory: Trajectory): Int32Array => {
  const out = new Int32Array(length(trajectory))
  let offset = 0
  for (const segment of trajectory.segments) {
    out.fill(segment.kind === 'prompt' ? -1 : segment.turn, offset, offset + segment.tokens.length)
    offset += segment.tokens.length
  }
  return out
}

const masksError = (segment: Segment): string | undefined => {
  const { masks, tokens } = segment
  if (masks === undefined) return undefined
  if (segment.kind !== 'action') return `masks on a ${segment.kind} segment`
  if (masks.length !== tokens.length) return `${masks.length} masks for ${tokens.length} tokens`
  for (const [j, mask] of masks.entries()) {
    const id = tokens[j]!
    if (mask !== null && ((mask[id >> 5] ?? 0) >>> (id & 31)) % 2 === 0) return `masks.${j} does not allow its token ${id}`
  }
  return undefined
}

/**
 * Checks the invariants a trajectory must hold: one turn record and one reward per turn,
 * action log-probs and masks of the right length (each mask allowing its token), turn indices
 * in order.
 *
 * @category destructors
 * @since 0.1.0
 */
export const validate = (trajectory: Trajectory): E.Either<string, Trajectory> => {
  if (trajectory.turns.length !== trajectory.turnRewards.length)
    return E.left(`turns (${trajectory.turns.length}) and turnRewards (${trajectory.turnRewards.length}) differ in length`)
  let lastTurn = -1
  for (const [i, segment] of trajectory.segments.entries()) {
    if (segment.logprobs !== undefined && segment.logprobs.length !== segment.tokens.length)
      return E.left(`segments.${i}: ${segment.logprobs.length} logprobs for ${segment.tokens.length} tokens`)
    const masks = masksError(segment)
    if (masks !== undefined) return E.left(`segments.${i}: ${masks}`)
    if (segment.kind !== 'prompt') {
      if (segment.turn < lastTurn) return E.left(`segments.${i}: turn ${segment.turn} after turn ${lastTurn}`)
      lastTurn = segment.turn
    }
    if (segment.kind === 'action' && segment.turn >= trajectory.turns.length)
      return E.left(`segments.${i}: action of turn ${segment.turn} but only ${trajectory.turns.length} turns`)
  }
  return E.right(trajectory)
}
