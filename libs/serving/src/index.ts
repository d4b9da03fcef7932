/**
 * @mtrl/serving: any mtrl agent served over the OpenAI Chat Completions API, for the agent
 * programs people already write (the `openai` client, the `ai` SDK, any language): continuous
 * batching on a KV-cached decoder, a prefix cache for multi-turn conversations, the model's own
 * Jinja chat template with tool calls, streaming, and the exact token ids.
 *
 * @since 0.1.0
 */
export * as Capture from './Capture.js'
export * as ChatFormat from './ChatFormat.js'
export * as Completions from './Completions.js'
export * as Engine from './Engine.js'
export * as Grammar from './Grammar.js'
export * as Replies from './Replies.js'
export * as Request from './Request.js'
export * as Response from './Response.js'
export * as Responses from './Responses.js'
export * as Rollouts from './Rollouts.js'
export * as Serve from './Serve.js'
export * as Server from './Server.js'
export * as ToolCalls from './ToolCalls.js'
