/**
 * A sequence the engine has accepted: the slot it decodes in (-1 while it waits), how much of
 * its prompt came from the prefix cache and how much is in the decoder so far, the logits it
 * samples its next token from, and what it has sampled.
 */
import type { Sampling } from '@mtrl/policy'
import type { Completion, Finish, Sequence } from '../Engine.js'

export interface Running {
  readonly id: number
  readonly sequence: Sequence
  readonly resolve: (completion: Completion) => void
  readonly reject: (error: unknown) => void
  slot: number
  cached: number
  /** Prompt tokens in the cache so far. */
  fed: number
  pending: Float32Array | undefined
  /** The grammar's mask for the pending logits (constrained sequences). */
  mask: Int32Array | undefined
  readonly masks: Int32Array[]
  readonly tokens: number[]
  readonly logprobs: number[]
  readonly top: Array<ReadonlyArray<Sampling.Candidate>>
}

/** A sequence just submitted: no slot, nothing fed, nothing sampled. */
export const make = (id: number, sequence: Sequence, resolve: (completion: Completion) => void, reject: (error: unknown) => void): Running => ({
  id,
  sequence,
  resolve,
  reject,
  slot: -1,
  cached: 0,
  fed: 0,
  pending: undefined,
  mask: undefined,
  masks: [],
  tokens: [],
  logprobs: [],
  top: []
})

/** What the sequence sampled, ended for `finish`. */
export const completion = (r: Running, finish: Finish): Completion => ({
  tokens: Int32Array.from(r.tokens),
  logprobs: Float32Array.from(r.logprobs),
  top: r.top,
  finish,
  cachedTokens: r.cached,
  ...(r.sequence.grammar === undefined ? {} : { masks: r.masks })
})

/** The completion of a sequence aborted before it got a slot: nothing sampled, nothing cached. */
export const abortedWhileWaiting = (): Completion => ({ tokens: new Int32Array(0), logprobs: new Float32Array(0), top: [], finish: 'aborted', cachedTokens: 0 })
