/**
 * The engine's continuous batch: the sequences waiting for a slot, those decoding in one, the
 * counters, and the moves between them (admission into slots, the end of a sequence, the end of
 * every sequence in flight on a broken invariant).
 */
import type { Decoder } from '@mtrl/policy'
import type { Finish } from '../Engine.js'
import * as Running from './running.js'
import type * as Slots from './slots.js'

/** Counters since the engine started (see `Engine.Stats`). */
export interface Counts {
  steps: number
  completed: number
  promptTokens: number
  cachedTokens: number
  generatedTokens: number
}

export interface Batch {
  readonly decoder: Decoder.Decoder
  readonly slots: Slots.Slots
  /** Prompt tokens prefilled per step over all sequences. */
  readonly prefillChunk: number
  /** Sequences without a slot yet, in the order they came. */
  readonly waiting: Running.Running[]
  /** Sequences in a slot, by id. */
  readonly running: Map<number, Running.Running>
  readonly counts: Counts
}

/** An empty batch over `decoder` and its `slots`. */
export const make = (decoder: Decoder.Decoder, slots: Slots.Slots, prefillChunk: number): Batch => ({
  decoder,
  slots,
  prefillChunk,
  waiting: [],
  running: new Map(),
  counts: { steps: 0, completed: 0, promptTokens: 0, cachedTokens: 0, generatedTokens: 0 }
})

/** Ends a running sequence for `finish`: its slot keeps its tokens for the prefix cache. */
export const finish = (batch: Batch, r: Running.Running, finish: Finish): void => {
  batch.running.delete(r.id)
  batch.slots.park(r.slot)
  batch.counts.completed++
  r.resolve(Running.completion(r, finish))
}

/** Ends every sequence whose signal has aborted, running or waiting. */
export const endAborted = (batch: Batch): void => {
  for (const r of [...batch.running.values()]) if (r.sequence.signal?.aborted === true) finish(batch, r, 'aborted')
  for (let i = batch.waiting.length - 1; i >= 0; i--)
    if (batch.waiting[i]!.sequence.signal?.aborted === true) {
      const [r] = batch.waiting.splice(i, 1)
      r!.resolve(Running.abortedWhileWaiting())
    }
}

/** Fails one running sequence with `error` and frees its slot. */
export const fail = (batch: Batch, r: Running.Running, error: unknown): void => {
  batch.running.delete(r.id)
  batch.slots.free(r.slot)
  r.reject(error)
}

/** Fails every running sequence with `error` and frees its slot (a broken invariant); the waiting ones stay. */
export const failInFlight = (batch: Batch, error: unknown): void => {
  for (const r of [...batch.running.values()]) fail(batch, r, error)
}

/** The prompt a busy slot will hold once prefilled (`undefined` when it is not prefilling). */
const intended =
  (batch: Batch) =>
  (slot: number): Int32Array | undefined => {
    for (const r of batch.running.values()) if (r.slot === slot && r.fed < r.sequence.prompt.length) return r.sequence.prompt
    return undefined
  }

/** Moves waiting sequences into slots, in order; one that would rather copy a prefix still being prefilled waits a step. */
export const admit = (batch: Batch): void => {
  const { waiting, slots, counts } = batch
  for (let i = 0; i < waiting.length;) {
    const r = waiting[i]!
    const placement = slots.plan(r.sequence.prompt, intended(batch))
    if (placement === undefined) return
    if (placement.waitFor !== undefined) {
      i++
      continue
    }
    slots.take(placement, r.id)
    r.slot = placement.slot
    r.cached = placement.cached
    r.fed = placement.cached
    counts.promptTokens += r.sequence.prompt.length
    counts.cachedTokens += placement.cached
    waiting.splice(i, 1)
    batch.running.set(r.id, r)
  }
}

/** Asks the grammar of every constrained sequence with logits to sample for the mask of its next token. */
export const maskPending = async (batch: Batch): Promise<void> => {
  for (const r of batch.running.values())
    if (r.pending !== undefined && r.mask === undefined && r.sequence.grammar !== undefined) r.mask = await r.sequence.grammar.mask()
}
