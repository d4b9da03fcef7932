/**
 * The objects of the Responses API built from a chat completion: the `response` object (its
 * `output` items: an assistant `message` with `output_text`, then one `function_call` item per
 * call), and, streaming, its events (`response.created`, `response.output_item.added`,
 * `response.output_text.delta`, ..., `response.completed`), each with its `sequence_number`.
 */
import { randomBytes } from 'node:crypto'
import type * as Response from '../Response.js'
import type * as Responses from '../Responses.js'

const hex = (n: number): string => randomBytes(n).toString('hex')

export type OutputItem =
  | {
      readonly type: 'message'
      readonly id: string
      readonly status: 'completed' | 'in_progress'
      readonly role: 'assistant'
      readonly content: ReadonlyArray<{
        readonly type: 'output_text'
        readonly text: string
        readonly annotations: ReadonlyArray<never>
        readonly logprobs?: unknown
      }>
    }
  | {
      readonly type: 'function_call'
      readonly id: string
      readonly call_id: string
      readonly name: string
      readonly arguments: string
      readonly status: 'completed' | 'in_progress'
    }

export interface Usage {
  readonly input_tokens: number
  readonly input_tokens_details: { readonly cached_tokens: number }
  readonly output_tokens: number
  readonly output_tokens_details: { readonly reasoning_tokens: number }
  readonly total_tokens: number
}

export const newId = (): string => `resp_${hex(12)}`

export const usageOf = (u: Response.Usage): Usage => ({
  input_tokens: u.prompt_tokens,
  input_tokens_details: { cached_tokens: u.prompt_tokens_details.cached_tokens },
  output_tokens: u.completion_tokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: u.total_tokens
})

export const messageItem = (text: string, status: 'completed' | 'in_progress', id = `msg_${hex(12)}`, logprobs?: unknown): OutputItem => ({
  type: 'message',
  id,
  status,
  role: 'assistant',
  content: status === 'in_progress' ? [] : [{ type: 'output_text', text, annotations: [], ...(logprobs === undefined ? {} : { logprobs }) }]
})

export const callItem = (call: Response.ToolCall, status: 'completed' | 'in_progress'): OutputItem => ({
  type: 'function_call',
  id: `fc_${hex(12)}`,
  call_id: call.id,
  name: call.function.name,
  arguments: status === 'completed' ? call.function.arguments : '',
  status
})

/** The output items of one reply: its text as a message (when there is text or no call), then its calls. */
export const outputOf = (content: string | null, calls: ReadonlyArray<Response.ToolCall>, logprobs?: unknown): ReadonlyArray<OutputItem> => [
  ...(content !== null && (content.length > 0 || calls.length === 0) ? [messageItem(content, 'completed', undefined, logprobs)] : []),
  ...calls.map((c) => callItem(c, 'completed'))
]

/** The `response` object. */
export const response = (
  id: string,
  model: string,
  request: Responses.ResponseRequest,
  created: number,
  state: { readonly status: 'in_progress' | 'completed' | 'incomplete'; readonly output: ReadonlyArray<OutputItem>; readonly usage: Usage | null }
) => ({
  id,
  object: 'response' as const,
  created_at: created,
  status: state.status,
  error: null,
  incomplete_details: state.status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
  instructions: request.instructions ?? null,
  max_output_tokens: request.max_output_tokens ?? null,
  model,
  output: state.output,
  output_text: state.output.flatMap((i) => (i.type === 'message' ? i.content.map((c) => c.text) : [])).join(''),
  parallel_tool_calls: request.parallel_tool_calls ?? true,
  previous_response_id: request.previous_response_id ?? null,
  reasoning: { effort: null, summary: null },
  store: request.store ?? true,
  temperature: request.temperature ?? 1,
  text: { format: request.text?.format ?? { type: 'text' } },
  tool_choice: request.tool_choice ?? 'auto',
  tools: request.tools ?? [],
  top_p: request.top_p ?? 1,
  truncation: request.truncation ?? 'disabled',
  usage: state.usage,
  user: request.user ?? null,
  metadata: request.metadata ?? {}
})
