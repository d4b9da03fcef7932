/**
 * How an action is written in the policy's reply, and the strict parser that extracts it.
 *
 * - `plain`: the whole reply is the action; it must be one non-empty line.
 * - `tagged`: free reasoning, then the action inside `<action>...</action>`; exactly one such
 *   block, one line, and nothing after it.
 * - `tool`: one call of the function tool `act(command)` ({@link actTool}) in the Hermes syntax of
 *   Qwen-style chat templates, `<tool_call>\n{"name":"act","arguments":{"command":"..."}}\n</tool_call>`,
 *   exactly as `@mtrl/serving` writes a tool call of an mtrl model and parses it into
 *   `tool_calls`: the layout an agent written with tools (the `ai` SDK, `openai` with `tools`)
 *   meets through the policy's OpenAI endpoint, so demonstrations and rollouts in this format
 *   teach a small model to call the tool.
 *
 * Strictness is the guard against a policy that writes text imitating the environment (fake
 * observations, `reward: 1 done: True` lines, as in RAGEN's reward-hacking logs): anything after
 * the action makes the reply unparseable, and nothing the policy writes is ever fed back as
 * environment output. The reply itself already ends at the first stop token (the sampler stops
 * there), so a fake "next user turn" cannot even be generated.
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'

/**
 * @category codecs
 * @since 0.1.0
 */
export const ActionFormat = t.keyof({ plain: null, tagged: null, tool: null })
/** @category models @since 0.1.0 */
export type ActionFormat = t.TypeOf<typeof ActionFormat>

/**
 * A parsed reply. `parsed = false` is a format error: `action` is then a best-effort guess
 * (the first line, or the tag's content) that rollouts may replace with a default action.
 *
 * @category models
 * @since 0.1.0
 */
export interface Parsed {
  readonly parsed: boolean
  readonly action: string
  /** Text before the action (tagged format), `''` otherwise. */
  readonly reasoning: string
}

/**
 * The one tool of the `tool` format, in OpenAI's function-tool shape (what an agent sends as
 * `tools`): `act` with one string parameter, `command`.
 *
 * @category constants
 * @since 0.5.0
 */
export const actTool = {
  type: 'function',
  function: {
    name: 'act',
    description: 'Run one command in the environment.',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] }
  }
} as const

const CALL_OPEN = '<tool_call>'
const CALL_CLOSE = '</tool_call>'

/**
 * A command written as a call of {@link actTool} (the `tool` format's reply).
 *
 * @category constructors
 * @since 0.5.0
 */
export const toolCall = (command: string): string => `${CALL_OPEN}\n${JSON.stringify({ name: 'act', arguments: { command } })}\n${CALL_CLOSE}`

/** The command of a reply that is exactly one call of `act` with a one-line command, else why not (`undefined`: no call block). */
const parseToolCall = (reply: string): Parsed => {
  const text = reply.trim()
  const open = text.indexOf(CALL_OPEN)
  const close = open < 0 ? -1 : text.indexOf(CALL_CLOSE, open + CALL_OPEN.length)
  if (open < 0 || close < 0) return { parsed: false, action: firstLine(text), reasoning: '' }
  const body = text.slice(open + CALL_OPEN.length, close).trim()
  const outside = `${text.slice(0, open)}${text.slice(close + CALL_CLOSE.length)}`.trim()
  let call: unknown
  try {
    call = JSON.parse(body)
  } catch {
    return { parsed: false, action: firstLine(body), reasoning: '' }
  }
  const { name, arguments: args } = (call ?? {}) as { name?: unknown; arguments?: unknown }
  const command = (args ?? {}) as { command?: unknown }
  const keys = typeof args === 'object' && args !== null ? Object.keys(args) : []
  if (typeof command.command !== 'string') return { parsed: false, action: firstLine(body), reasoning: '' }
  const action = command.command.trim()
  const ok = name === 'act' && keys.length === 1 && action.length > 0 && !action.includes('\n') && outside.length === 0
  return { parsed: ok, action: firstLine(action), reasoning: '' }
}

const OPEN = '<action>'
const CLOSE = '</action>'

const firstLine = (text: string): string => text.trim().split('\n')[0]?.trim() ?? ''

/**
 * Parses a reply (the decoded action tokens without the stop token).
 *
 * @example
 * import { ActionFormat } from '@mtrl/rollout'
 * ActionFormat.parse('tagged')('the key is here <action>take key</action>')
 * // { parsed: true, action: 'take key', reasoning: 'the key is here' }
 *
 * @category destructors
 * @since 0.1.0
 */
export const parse =
  (format: ActionFormat) =>
  (reply: string): Parsed => {
    switch (format) {
      case 'plain': {
        const text = reply.trim()
        const ok = text.length > 0 && !text.includes('\n')
        return { parsed: ok, action: firstLine(text), reasoning: '' }
      }
      case 'tagged': {
        const open = reply.indexOf(OPEN)
        const close = open < 0 ? -1 : reply.indexOf(CLOSE, open + OPEN.length)
        if (open < 0 || close < 0) return { parsed: false, action: firstLine(reply), reasoning: reply.trim() }
        const action = reply.slice(open + OPEN.length, close).trim()
        const reasoning = reply.slice(0, open).trim()
        const rest = reply.slice(close + CLOSE.length).trim()
        const ok = action.length > 0 && !action.includes('\n') && rest.length === 0 && !reasoning.includes(OPEN) && !action.includes(OPEN)
        return { parsed: ok, action: firstLine(action), reasoning }
      }
      case 'tool':
        return parseToolCall(reply)
    }
  }

/**
 * The line `@mtrl/serving`'s `ChatFormat.turns` adds to the system turn of a request whose
 * `tools` are `[actTool]` (a test holds the two equal), so an SFT demonstration's system turn is
 * exactly the prompt an agent with the `act` tool and no system message is served.
 */
const TOOL_LINE = 'Tools: act(command). Call one as <tool_call>{"name": ..., "arguments": {...}}</tool_call>.'

/**
 * One sentence for the system prompt telling the policy how to write actions.
 *
 * @category destructors
 * @since 0.1.0
 */
export const instruction = (format: ActionFormat): string => {
  switch (format) {
    case 'plain':
      return 'Reply with the action only, on one line.'
    case 'tagged':
      return 'Think briefly, then write the action inside <action>...</action> and stop.'
    case 'tool':
      return TOOL_LINE
  }
}
