/**
 * Tokens on their way into the sampler's KV cache. Prompts and observations are queued as the
 * episodes ask for them and appended in one batched call per turn; every appended token counts
 * as a context token.
 */
import type { Sampler } from '@mtrl/core'
import type { Tally } from './tally.js'

/** Tokens for one slot. */
export type Entry = readonly [slot: number, tokens: Int32Array]

/** Appends `entries` to their slots in one call and counts their tokens as context tokens. */
export const appendNow = (session: Sampler.SamplerSession, tally: Tally, entries: ReadonlyArray<Entry>): void => {
  session.append(
    entries.map(([slot]) => slot),
    entries.map(([, tokens]) => tokens)
  )
  for (const [, tokens] of entries) tally.contextTokens += tokens.length
}

/** Tokens waiting to be appended. */
export interface ContextQueue {
  /** Queues `tokens` for `slot`; they reach the session at the next `flush`, in queue order. */
  readonly push: (slot: number, tokens: Int32Array) => void
  /** Appends everything queued, if anything, in one call, and empties the queue. */
  readonly flush: () => void
}

/** An empty queue in front of `session`, counting into `tally`. */
export const contextQueue = (session: Sampler.SamplerSession, tally: Tally): ContextQueue => {
  const pending: Entry[] = []
  return {
    push: (slot, tokens) => {
      pending.push([slot, tokens])
    },
    flush: () => {
      if (pending.length === 0) return
      appendNow(session, tally, pending)
      pending.length = 0
    }
  }
}
