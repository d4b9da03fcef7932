/**
 * Trajectories -> right-padded training arrays `[batch, time]` (flat, row-major): the token ids
 * the policy saw, the action mask (1 exactly on action tokens, from segment provenance), and the
 * sampler's log-probs on those tokens. Shared by the SFT and RL trainers so both mask the same
 * way: prompt, observation and padding tokens never receive loss.
 *
 * No tensors here; trainers make them once per minibatch.
 *
 * @since 0.1.0
 */
import { Trajectory } from '@mtrl/core'

/**
 * - `ids [batch, time]` int32, padded with `pad`;
 * - `actionMask [batch, time]` float32: 1 on action tokens (0 on actions marked
 *   `trainable: false`);
 * - `samplerLogprobs [batch, time]` float32: the sampler's log-prob on action tokens (0 where a
 *   segment has none, e.g. expert data), 0 elsewhere;
 * - `turnIndex [batch, time]` int32: turn of each token, -1 on prompt and padding;
 * - `lengths [batch]`: unpadded length of each row;
 * - `allowed` (only when a sample has constrained actions, `Segment.masks`): per row, the
 *   positions whose token was drawn under an allowed-token mask, with the mask (the shape
 *   `Scoring.tokenLogprobs`'s `allowed` option takes); compact, never a dense [batch, time, vocab].
 *
 * @category models
 * @since 0.1.0
 */
export interface Batch {
  readonly batch: number
  readonly time: number
  readonly ids: Int32Array
  readonly actionMask: Float32Array
  readonly samplerLogprobs: Float32Array
  readonly turnIndex: Int32Array
  readonly lengths: Int32Array
  readonly allowed?: ReadonlyArray<ReadonlyArray<Allowed>>
}

/**
 * A constrained position of a row: `ids[position]` was drawn under `mask` (bit `id % 32` of word
 * `id >> 5` set: allowed).
 *
 * @category models
 * @since 0.5.0
 */
export interface Allowed {
  readonly position: number
  readonly mask: Int32Array
}

/** The constrained positions of a sample (its action segments' masks), or none. */
const allowedOf = (sample: Trajectory.Trajectory): Allowed[] => {
  const out: Allowed[] = []
  let at = 0
  for (const segment of sample.segments) {
    segment.masks?.forEach((mask, j) => {
      if (mask !== null && segment.kind === 'action') out.push({ position: at + j, mask })
    })
    at += segment.tokens.length
  }
  return out
}

/**
 * Pads and flattens samples. `time` is the longest sample unless `time` is given (longer samples
 * are a programmer error).
 *
 * @example
 * import { Batch } from '@mtrl/rollout'
 * declare const samples: ReadonlyArray<import('@mtrl/core').Trajectory.Trajectory>
 * const batch = Batch.make({ pad: 0 })(samples)
 *
 * @category constructors
 * @since 0.1.0
 */
export const make =
  (options: { readonly pad: number; readonly time?: number }) =>
  (samples: ReadonlyArray<Trajectory.Trajectory>): Batch => {
    const lengths = Int32Array.from(samples.map(Trajectory.length))
    const longest = lengths.reduce((a, b) => Math.max(a, b), 0)
    const time = options.time ?? longest
    if (longest > time) throw new Error(`Batch.make: a sample has ${longest} tokens, more than time ${time}`)
    const n = samples.length
    const ids = new Int32Array(n * time).fill(options.pad)
    const actionMask = new Float32Array(n * time)
    const samplerLogprobs = new Float32Array(n * time)
    const turnIndex = new Int32Array(n * time).fill(-1)
    samples.forEach((sample, b) => {
      const start = b * time
      ids.set(Trajectory.tokens(sample), start)
      const mask = Trajectory.actionMask(sample)
      actionMask.set(mask, start)
      turnIndex.set(Trajectory.turnIndex(sample), start)
      let at = start
      for (const segment of sample.segments) {
        if (segment.logprobs !== undefined) samplerLogprobs.set(segment.logprobs, at)
        at += segment.tokens.length
      }
      for (let i = start; i < at; i++) if (mask[i - start] === 0) samplerLogprobs[i] = 0
    })
    const allowed = samples.map(allowedOf)
    const constrained = allowed.some((row) => row.length > 0)
    return { batch: n, time, ids, actionMask, samplerLogprobs, turnIndex, lengths, ...(constrained ? { allowed } : {}) }
  }

/**
 * The columns a batch needs: `time` cut to its longest row (at least 1). Only padding goes, so
 * a causal model scores every kept token exactly as before; a minibatch drawn from a batch of
 * long and short episodes then costs its own longest row, not the whole batch's.
 *
 * @example
 * import { Batch } from '@mtrl/rollout'
 * declare const batch: Batch.Batch
 * const minibatch = Batch.trim(Batch.select([0, 2])(batch))
 *
 * @category combinators
 * @since 0.3.0
 */
export const trim = (batch: Batch): Batch => {
  const time = Math.max(
    1,
    batch.lengths.reduce((a, b) => Math.max(a, b), 0)
  )
  // the constrained positions lie within their rows' lengths: they stay
  return time === batch.time
    ? batch
    : { ...columns(batch.time, time)(batch), batch: batch.batch, lengths: batch.lengths, ...(batch.allowed === undefined ? {} : { allowed: batch.allowed }) }
}

/**
 * The first `time` columns of every row of a flat `[rows, from]` array (`time <= from`).
 *
 * @category combinators
 * @since 0.3.0
 */
export const cropRows =
  (from: number, time: number) =>
  <A extends Int32Array | Float32Array>(src: A): A => {
    if (time > from) throw new Error(`Batch.cropRows: ${time} columns asked of rows of ${from}`)
    const rows = src.length / from
    const out = new (src.constructor as new (n: number) => A)(rows * time)
    for (let r = 0; r < rows; r++) out.set(src.subarray(r * from, r * from + time), r * time)
    return out
  }

const columns =
  (from: number, time: number) =>
  (batch: Batch): Omit<Batch, 'batch' | 'lengths'> => {
    const crop = cropRows(from, time)
    return { time, ids: crop(batch.ids), actionMask: crop(batch.actionMask), samplerLogprobs: crop(batch.samplerLogprobs), turnIndex: crop(batch.turnIndex) }
  }

/**
 * The rows `rows` of a batch (e.g. a minibatch), keeping `time`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const select =
  (rows: ReadonlyArray<number>) =>
  (batch: Batch): Batch => {
    const { time } = batch
    const pick = <A extends Int32Array | Float32Array>(src: A, make: (n: number) => A): A => {
      const out = make(rows.length * time)
      rows.forEach((r, i) => out.set(src.subarray(r * time, (r + 1) * time), i * time))
      return out
    }
    return {
      batch: rows.length,
      time,
      ids: pick(batch.ids, (n) => new Int32Array(n)),
      actionMask: pick(batch.actionMask, (n) => new Float32Array(n)),
      samplerLogprobs: pick(batch.samplerLogprobs, (n) => new Float32Array(n)),
      turnIndex: pick(batch.turnIndex, (n) => new Int32Array(n)),
      lengths: Int32Array.from(rows.map((r) => batch.lengths[r]!)),
      ...(batch.allowed === undefined ? {} : { allowed: rows.map((r) => batch.allowed![r] ?? []) })
    }
  }
