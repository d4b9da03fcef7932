/**
 * The conversations of the server's last responses, by response id, for `previous_response_id`:
 * at most `limit`, the least recently stored or used forgotten first.
 */
import type * as Request from '../Request.js'

export interface Conversations {
  readonly get: (id: string) => ReadonlyArray<Request.Message> | undefined
  readonly set: (id: string, messages: ReadonlyArray<Request.Message>) => void
}

export const make = (limit: number): Conversations => {
  const kept = new Map<string, ReadonlyArray<Request.Message>>()
  return {
    get: (id) => {
      const messages = kept.get(id)
      if (messages !== undefined) {
        kept.delete(id)
        kept.set(id, messages)
      }
      return messages
    },
    set: (id, messages) => {
      kept.set(id, messages)
      while (kept.size > limit) kept.delete(kept.keys().next().value as string)
    }
  }
}
