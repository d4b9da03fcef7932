/**
 * How an action is written in the policy's reply, and the strict parser that extracts it.
 *
 * - `plain`: the whole reply is the action; it must be one non-empty line.
 * - `tagged`: free reasoning, then the action inside `<action>...</action>`; exactly one such
 *   block, one line, and nothing after it.
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
export const ActionFormat = t.keyof({ plain: null, tagged: null })
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
    }
  }

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
  }
}
