/**
 * What crosses the queue: the data of an episode job (which policy version, which environment,
 * which seeds, which episode slots, how to sample) and its result (the episodes, token for
 * token, and the rollout's counters). io-ts codecs, JSON on the wire; token ids and log-probs
 * travel as base64 of their little-endian bytes, so they arrive bit for bit (a `-0` or the last
 * bit of a float32 log-prob survives) and take a quarter of the room of JSON numbers.
 *
 * @since 0.1.0
 */
import { Trajectory } from '@mtrl/core'
import { Rollout } from '@mtrl/rollout'
import * as t from 'io-ts'

const isBase64 = (u: unknown): u is string => typeof u === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(u) && u.length % 4 === 0

const bytesOf = (view: ArrayBufferView): Buffer => Buffer.from(view.buffer, view.byteOffset, view.byteLength)

/**
 * A typed array <-> base64 of its bytes (little-endian, as every platform Node runs on).
 *
 * @category codecs
 * @since 0.1.0
 */
const typedFromBase64 = <A extends Int32Array | Float32Array>(name: string, make: (bytes: ArrayBuffer) => A, is: (u: unknown) => u is A) =>
  new t.Type<A, string, unknown>(
    name,
    is,
    (u, c) => {
      if (!isBase64(u)) return t.failure(u, c, 'base64 text')
      const bytes = Buffer.from(u, 'base64')
      if (bytes.length % 4 !== 0) return t.failure(u, c, 'a whole number of 4-byte items')
      return t.success(make(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)))
    },
    (a) => bytesOf(a).toString('base64')
  )

/** @category codecs @since 0.1.0 */
export const Int32ArrayFromBase64 = typedFromBase64(
  'Int32ArrayFromBase64',
  (b) => new Int32Array(b),
  (u): u is Int32Array => u instanceof Int32Array
)
/** @category codecs @since 0.1.0 */
export const Float32ArrayFromBase64 = typedFromBase64(
  'Float32ArrayFromBase64',
  (b) => new Float32Array(b),
  (u): u is Float32Array => u instanceof Float32Array
)

/**
 * A trajectory segment on the wire (core's `Segment` with base64 arrays).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Segment = t.intersection([
  t.type({ kind: Trajectory.SegmentKind, turn: t.number, tokens: Int32ArrayFromBase64 }),
  t.partial({ logprobs: Float32ArrayFromBase64, trainable: t.boolean })
])

/**
 * A trajectory on the wire: core's `Trajectory` with {@link Segment}s.
 *
 * @category codecs
 * @since 0.1.0
 */
export const WireTrajectory = t.type({ ...Trajectory.Trajectory.props, segments: t.readonlyArray(Segment) })

/**
 * Why an episode ended (`Rollout.Ending`).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Ending = t.keyof({ done: null, turnLimit: null, contextLimit: null, slotBudget: null })
// a compile error when Rollout.Ending gains or loses a case the wire does not know
const sameEnding: [t.TypeOf<typeof Ending>] extends [Rollout.Ending] ? ([Rollout.Ending] extends [t.TypeOf<typeof Ending>] ? true : never) : never = true
void sameEnding

/**
 * One finished episode, as `Rollout.Episode`; `slot` is the iteration's (global) slot index.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Episode = t.type({ trajectory: WireTrajectory, samples: t.readonlyArray(WireTrajectory), slot: t.number, index: t.number, ending: Ending })
/** @category models @since 0.1.0 */
export type Episode = t.TypeOf<typeof Episode>

/**
 * Where a policy version lives in Redis: the model record (configuration and tokenizer, published
 * once per model) and the weights of this version (safetensors bytes).
 *
 * @category codecs
 * @since 0.1.0
 */
export const PolicyRef = t.type({ model: t.string, weights: t.string })
/** @category models @since 0.1.0 */
export type PolicyRef = t.TypeOf<typeof PolicyRef>

/**
 * The data of one episode job: `seeds.length` groups of `groupSize` episodes, playing the
 * iteration's slots `firstSlot ..< firstSlot + seeds.length * groupSize`, sampling from the
 * per-slot streams of `key` (`Rollout.Streams`), so the episodes are those a local rollout of
 * the whole iteration plays in the same slots.
 *
 * - `env`: the environment spec as the caller wrote it (JSON); the worker's resolver builds it;
 * - `rollout`: the rollout options; `contextLength`: the sampler's context.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Job = t.type({
  version: t.literal(1),
  policy: PolicyRef,
  env: t.unknown,
  rollout: Rollout.Options,
  contextLength: t.number,
  groupSize: t.number,
  seeds: t.readonlyArray(t.number),
  firstSlot: t.number,
  key: t.number
})
/** @category models @since 0.1.0 */
export type Job = t.TypeOf<typeof Job>

/**
 * The counters of a rollout (`RolloutMetrics.Counters`), summed over jobs by the runner.
 *
 * @category codecs
 * @since 0.1.0
 */
export const Counters = t.type({
  generatedTokens: t.number,
  contextTokens: t.number,
  cutOff: t.number,
  hackingPairs: t.number,
  pairs: t.number,
  seconds: t.number
})

/**
 * What a worker returns for a job: the episodes (in slot order), the counters, and which worker
 * played them (`worker`: its name, for reports).
 *
 * @category codecs
 * @since 0.1.0
 */
export const JobResult = t.type({ episodes: t.readonlyArray(Episode), counters: Counters, worker: t.string })
/** @category models @since 0.1.0 */
export type JobResult = t.TypeOf<typeof JobResult>
