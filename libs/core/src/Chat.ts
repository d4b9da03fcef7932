/**
 * Chat messages in the OpenAI format, the currency between environments, remote policies and
 * SFT data: `{"role": "system" | "user" | "assistant", "content": string}`, and a conversation
 * (`{"messages": [...]}`), one line of a chat JSONL file.
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'

/** @category codecs @since 0.1.0 */
export const Role = t.keyof({ system: null, user: null, assistant: null })
/** @category models @since 0.1.0 */
export type Role = t.TypeOf<typeof Role>

/** @category codecs @since 0.1.0 */
export const Message = t.type({ role: Role, content: t.string })
/** @category models @since 0.1.0 */
export type Message = t.TypeOf<typeof Message>

/**
 * One conversation: one line of a chat JSONL file (other fields of the line are ignored).
 *
 * @category codecs
 * @since 0.1.0
 */
export const Conversation = t.type({ messages: t.readonlyArray(Message) })
/** @category models @since 0.1.0 */
export type Conversation = t.TypeOf<typeof Conversation>

/** @category constructors @since 0.1.0 */
export const system = (content: string): Message => ({ role: 'system', content })
/** @category constructors @since 0.1.0 */
export const user = (content: string): Message => ({ role: 'user', content })
/** @category constructors @since 0.1.0 */
export const assistant = (content: string): Message => ({ role: 'assistant', content })
