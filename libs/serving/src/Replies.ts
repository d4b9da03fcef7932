/**
 * The replies a server produced, by what the client will send back: when an agent returns an
 * assistant message the server wrote (its content and tool calls) after the same prompt, the
 * prompt uses the exact token ids that were sampled for it, not a re-encoding of its text (which
 * may tokenize differently: "re-tokenisation drift", the first failure mode of agent RL through
 * an API). A reply is known by the prompt it followed and its text, so two conversations that
 * happen to produce the same text never swap each other's tokens. A bounded map, oldest first
 * out.
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
  /** Remembers the ids sampled for `reply` after `prompt` (the stop token included when it ended the reply). */
  readonly remember: (prompt: Int32Array, reply: Reply, ids: Int32Array) => void
  /** The ids sampled for a reply with this content and these calls after `prompt`, if the server wrote it. */
  readonly idsOf: (prompt: Int32Array, reply: Reply) => Int32Array | undefined
}

/** FNV-1a over the ids, with their count. */
const hashOf = (ids: Int32Array): string => {
  let h = 0x811c9dc5
  for (const id of ids) {
    h ^= id & 0xffff
    h = Math.imul(h, 0x01000193)
    h ^= id >>> 16
    h = Math.imul(h, 0x01000193)
  }
  return `${ids.length}:${(h >>> 0).toString(16)}`
}

/**
 * The key of a reply after a prompt: the prompt's hash, the content and the calls (names and
 * arguments, as JSON).
 *
 * @category destructors
 * @since 0.1.0
 */
export const keyOf = (prompt: Int32Array, reply: Reply): string =>
  JSON.stringify([hashOf(prompt), reply.content, reply.toolCalls.map((c) => [c.name, c.arguments])])

/**
 * A map of at most `capacity` replies (default 65 536).
 *
 * @example
 * import { Replies } from '@mtrl/serving'
 * const replies = Replies.make()
 * const prompt = Int32Array.of(1, 3, 9, 6, 5)
 * replies.remember(prompt, { content: 'go north', toolCalls: [] }, Int32Array.of(12, 40, 6))
 * replies.idsOf(prompt, { content: 'go north', toolCalls: [] }) // Int32Array [12, 40, 6]
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (capacity = 65_536): Replies => {
  const map = new Map<string, Int32Array>()
  return {
    remember: (prompt, reply, ids) => {
      const key = keyOf(prompt, reply)
      map.delete(key)
      map.set(key, ids)
      if (map.size > capacity) map.delete(map.keys().next().value as string)
    },
    idsOf: (prompt, reply) => map.get(keyOf(prompt, reply))
  }
}
