/**
 * Which sequence each decoder slot holds, and the prefix cache over them: a slot is `free`
 * (empty), `busy` (a sequence decodes in it) or `parked` (it keeps a finished sequence's tokens
 * for later requests that extend them, until evicted, least recently used first).
 */
import type { Decoder } from '@mtrl/policy'

export type SlotState = { readonly _tag: 'Free' } | { readonly _tag: 'Busy'; readonly id: number } | { readonly _tag: 'Parked'; readonly stamp: number }

/** Where a new sequence's prompt goes: its slot, the slot its cached prefix comes from, and how many of its tokens that is. */
export interface Placement {
  readonly slot: number
  readonly source: number
  readonly cached: number
  /** A busy slot still prefilling that will hold a longer prefix soon: worth waiting for. */
  readonly waitFor: number | undefined
}

const commonPrefix = (a: Int32Array, b: Int32Array, limit: number): number => {
  const n = Math.min(a.length, b.length, limit)
  let i = 0
  while (i < n && a[i] === b[i]) i++
  return i
}

export interface Slots {
  readonly state: (slot: number) => SlotState
  readonly park: (slot: number) => void
  readonly free: (slot: number) => void
  /**
   * Where `prompt` would go: the slot holding its longest reusable prefix (at most
   * `prompt.length - 1` tokens, so at least one is fed), taken in place when parked, else copied
   * into a free or the least recently used parked slot. `intended(slot)` is what a busy slot will
   * hold once its prompt is in. `undefined` when every slot is busy. Changes nothing.
   */
  readonly plan: (prompt: Int32Array, intended: (slot: number) => Int32Array | undefined) => Placement | undefined
  /** Carries a plan out: the slot holds the cached prefix (kept in place, copied, or emptied) and is busy with `id`. */
  readonly take: (placement: Placement, id: number) => void
}

export const make = (decoder: Decoder.Decoder, reuse: boolean): Slots => {
  const states: SlotState[] = Array.from({ length: decoder.slots }, () => ({ _tag: 'Free' }))
  // the weights version each slot's keys and values were computed under: after an optimizer
  // step they are stale, and nothing is reused from them
  const versions: number[] = Array.from({ length: decoder.slots }, () => -1)
  let clock = 0

  const reusable = (slot: number, prompt: Int32Array): number => {
    if (!reuse || decoder.length(slot) === 0 || versions[slot] !== decoder.weightsVersion()) return 0
    const k = commonPrefix(decoder.tokens(slot), prompt, prompt.length - 1)
    return decoder.canTruncate(slot, k) ? k : 0
  }

  const plan = (prompt: Int32Array, intended: (slot: number) => Int32Array | undefined): Placement | undefined => {
    let best = { slot: -1, cached: 0 }
    let waitFor: number | undefined
    let target = -1
    let oldest = Infinity
    states.forEach((s, slot) => {
      const cached = s._tag === 'Free' ? 0 : reusable(slot, prompt)
      // a parked slot wins ties: it is reused in place, no copy
      if (cached > best.cached || (cached === best.cached && cached > 0 && s._tag === 'Parked')) best = { slot, cached }
      if (s._tag === 'Busy') {
        const soon = intended(slot)
        if (reuse && soon !== undefined && versions[slot] === decoder.weightsVersion() && commonPrefix(soon, prompt, prompt.length - 1) > cached + 16)
          waitFor = slot
      }
      if (s._tag === 'Free' && oldest > -Infinity) {
        target = slot
        oldest = -Infinity
      } else if (s._tag === 'Parked' && s.stamp < oldest) {
        target = slot
        oldest = s.stamp
      }
    })
    if (best.slot >= 0 && states[best.slot]!._tag === 'Parked') return { slot: best.slot, source: best.slot, cached: best.cached, waitFor }
    if (target < 0) return undefined
    return { slot: target, source: best.cached > 0 ? best.slot : target, cached: best.cached, waitFor }
  }

  const take = (p: Placement, id: number): void => {
    if (p.source === p.slot) decoder.truncate(p.slot, p.cached)
    else decoder.copy(p.source, p.slot, p.cached)
    versions[p.slot] = decoder.weightsVersion()
    states[p.slot] = { _tag: 'Busy', id }
  }

  return {
    state: (slot) => states[slot]!,
    park: (slot) => {
      states[slot] = { _tag: 'Parked', stamp: clock++ }
    },
    free: (slot) => {
      decoder.reset(slot)
      states[slot] = { _tag: 'Free' }
    },
    plan,
    take
  }
}
