/**
 * The environments an EnvServer holds: ids, a cap, idle reaping, one operation at a time per
 * environment, and the last step's answer kept for a retried `seq`.
 */
import type { Env } from '@mtrl/core'

export interface Slot {
  readonly env: Env.Env
  lastUsed: number
  /** Operations on one environment run one after the other. */
  queue: Promise<unknown>
  busy: number
  nextSeq: number
  last: { readonly seq: number; readonly status: number; readonly body: unknown } | undefined
}

export interface Table {
  readonly size: () => number
  readonly ids: () => ReadonlyArray<number>
  /** `undefined` when the cap is reached. */
  readonly add: (env: Env.Env) => number | undefined
  readonly get: (id: number) => Slot | undefined
  /** Runs `op` after the slot's earlier operations; keeps the slot alive while it runs. */
  readonly run: <A>(slot: Slot, op: () => Promise<A>) => Promise<A>
  readonly remove: (id: number) => Promise<boolean>
  /** Closes environments idle for longer than `idleMs`; returns how many. */
  readonly reap: (now: number) => Promise<number>
  readonly closeAll: () => Promise<void>
}

export const make = (maxEnvs: number, idleMs: number): Table => {
  const slots = new Map<number, Slot>()
  let nextId = 0
  const closeQuietly = async (slot: Slot): Promise<void> => {
    try {
      await slot.queue.catch(() => undefined)
      await slot.env.close()()
    } catch {
      // an environment that fails to close is gone anyway
    }
  }
  return {
    size: () => slots.size,
    ids: () => [...slots.keys()],
    add: (env) => {
      if (slots.size >= maxEnvs) return undefined
      const id = nextId++
      slots.set(id, { env, lastUsed: Date.now(), queue: Promise.resolve(), busy: 0, nextSeq: 0, last: undefined })
      return id
    },
    get: (id) => slots.get(id),
    run: (slot, op) => {
      slot.busy += 1
      const result = slot.queue.then(op, op)
      slot.queue = result.then(
        () => undefined,
        () => undefined
      )
      return result.finally(() => {
        slot.busy -= 1
        slot.lastUsed = Date.now()
      })
    },
    remove: async (id) => {
      const slot = slots.get(id)
      if (slot === undefined) return false
      slots.delete(id)
      await closeQuietly(slot)
      return true
    },
    reap: async (now) => {
      const idle = [...slots.entries()].filter(([, slot]) => slot.busy === 0 && now - slot.lastUsed > idleMs)
      for (const [id] of idle) slots.delete(id)
      await Promise.all(idle.map(([, slot]) => closeQuietly(slot)))
      return idle.length
    },
    closeAll: async () => {
      const all = [...slots.values()]
      slots.clear()
      await Promise.all(all.map(closeQuietly))
    }
  }
}
