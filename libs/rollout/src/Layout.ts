/**
 * The text around the tokens: the system message and the first user message a rollout renders,
 * and how an expert's action is written in each action format. Expert data (SFT) goes through
 * these same functions, so demonstrations have exactly the token layout of rollouts.
 *
 * @since 0.1.0
 */
import type { Tokenizer } from '@mtrl/core'
import * as ActionFormat from './ActionFormat.js'

/**
 * The system message: the recipe's system prompt plus the action-format instruction (for `tool`,
 * on a line of its own, as a served request's system messages and tools are rendered).
 *
 * @category destructors
 * @since 0.1.0
 */
export const system = (systemPrompt: string, format: ActionFormat.ActionFormat): string =>
  [systemPrompt, ActionFormat.instruction(format)].filter((s) => s.length > 0).join(format === 'tool' ? '\n' : ' ')

/**
 * The first user message: the goal, then the first observation.
 *
 * @category destructors
 * @since 0.1.0
 */
export const firstUser = (goal: string, text: string): string => `${goal}\n${text}`

/**
 * An action as a reply in `format` (what an expert would have written), without the stop token.
 *
 * @category destructors
 * @since 0.1.0
 */
export const reply = (format: ActionFormat.ActionFormat, action: string, reasoning = ''): string => {
  switch (format) {
    case 'plain':
      return action
    case 'tagged':
      return `${reasoning.length > 0 ? `${reasoning}\n` : ''}<action>${action}</action>`
    case 'tool':
      return ActionFormat.toolCall(action)
  }
}

/**
 * The tokens of a reply the policy did not sample (an expert's, an exploration move's): the
 * template's `reply` where it has one (a template derived from a model's chat template writes
 * what that template writes before a reply's text), else its encoding, then the template's first
 * stop token, as a sampled reply ends.
 *
 * @example
 * import { Layout } from '@mtrl/rollout'
 * declare const template: import('@mtrl/core').Tokenizer.ChatTemplate
 * declare const tokenizer: import('@mtrl/core').Tokenizer.Tokenizer
 * const tokens = Layout.replyTokens(template, tokenizer)(Layout.reply('plain', 'take key'))
 *
 * @category destructors
 * @since 0.4.0
 */
export const replyTokens =
  (template: Tokenizer.ChatTemplate, tokenizer: Tokenizer.Tokenizer) =>
  (text: string): Int32Array => {
    if (template.reply !== undefined) return template.reply(text)
    const stop = template.stopTokens[0]
    if (stop === undefined) throw new Error('Layout.replyTokens: the chat template has no stop token')
    const body = tokenizer.encode(text)
    const out = new Int32Array(body.length + 1)
    out.set(body)
    out[body.length] = stop
    return out
  }
