/**
 * The replies a server produced, by what the client will send back: when an agent returns an
 * assistant message the server wrote (its content and tool calls), the prompt uses the exact
 * token ids that were sampled for it, not a re-encoding of its text (which may tokenize
 * differently: "re-tokenisation drift", the first failure mode of agent RL through an API). A
 * bounded map, oldest first out.
 *
 * @since 0.1.0
 */

/**
 * An assistant message as the client sees it: its text and its tool calls (arguments parsed).
 *
 * @category models
 * @since 0.1.0
 */
export interface Reply {
  readonly content: string
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly arguments: unknown }>
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Replies {
  /** Remembers the ids sampled for `reply` (the stop token included when it ended the reply). */
  readonly remember: (reply: Reply, ids: Int32Array) => void
  /** The ids sampled for a reply with this content and these calls, if the server wrote it. */
  readonly idsOf: (reply: Reply) => Int32Array | undefined
}

/**
 * The key of a reply: its content and its calls (names and arguments, as JSON).
 *
 * @category destructors
 * @since 0.1.0
 */
export const keyOf = (reply: Reply): string => JSON.stringify([reply.content, reply.toolCalls.map((c) => [c.name, c.arguments])])

/**
 * A map of at most `capacity` replies (default 65 536).
 *
 * @example
 * import { Replies } from '@mtrl/serving'
 * const replies = Replies.make()
 * replies.remember({ content: 'go north', toolCalls: [] }, Int32Array.of(12, 40, 6))
 * replies.idsOf({ content: 'go north', toolCalls: [] }) // Int32Array [12, 40, 6]
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (capacity = 65_536): Replies => {
  const map = new Map<string, Int32Array>()
  return {
    remember: (reply, ids) => {
      const key = keyOf(reply)
      map.delete(key)
      map.set(key, ids)
      if (map.size > capacity) map.delete(map.keys().next().value as string)
    },
    idsOf: (reply) => map.get(keyOf(reply))
  }
}
