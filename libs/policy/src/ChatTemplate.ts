/**
 * Chat templates: the token pieces of a conversation, built once per piece and only appended
 * to (decision 0002). A Hugging Face tokenizer that carries a chat template (its folder's
 * `chat_template.jinja` or `tokenizer_config.json`'s `chat_template`) is laid out as that
 * template writes it ({@link fromJinja}: rendering differences, checked at construction); where
 * the template cannot be appended to turn by turn, `origin` says why and the scheme below is
 * used. Otherwise one scheme covers every tokenizer: `HEADER role` ... `END`, where
 *
 * - a tokenizer with one special token per role (the word tokenizer) uses the role token as
 *   header and writes no role name: `<|user|> text <|end|>`;
 * - a tokenizer with one shared header token (ChatML: `<|im_start|>`, `<|im_end|>`) writes the
 *   role name after it: `<|im_start|>user\ntext<|im_end|>\n`, as Qwen2 and most chat models do.
 *
 * @since 0.1.0
 */
import * as E from 'fp-ts/lib/Either.js'
import * as JinjaLayout from './internal/jinjaLayout.js'
import { concat, type ChatTemplate, type Tokenizer } from './Tokenizer.js'

export type { ChatTemplate } from './Tokenizer.js'

/**
 * What a Jinja template receives besides the conversation: the tokenizer's `bos_token` and
 * `eos_token` strings, and the clock `strftime_now` reads (default: now).
 *
 * @category models
 * @since 0.5.0
 */
export interface JinjaOptions {
  readonly bos_token?: string | undefined
  readonly eos_token?: string | undefined
  readonly now?: () => Date
}

const addedIds = (tokenizer: Tokenizer): number[] => {
  const json = (tokenizer as { readonly json?: { readonly added_tokens?: ReadonlyArray<{ id: number; special?: boolean }> } }).json
  return (json?.added_tokens ?? []).filter((a) => a.special !== false).map((a) => a.id)
}

/**
 * The layout of a Hugging Face chat template (`source`, Jinja) for `tokenizer`, derived by
 * rendering differences: the prompt is the template's rendering of the system and first user
 * messages with the generation prompt; a reply ends with the first token the template writes
 * after an assistant message (its end of turn, which must be a special token: `stopTokens[0]`);
 * an observation is what the template writes after that token up to the next generation prompt.
 * Checked at construction on a three-turn conversation: each longer rendering must append to the
 * shorter, and the pieces encoded apart must be the whole encoded at once. A template that moves
 * the system message as turns are added (Mistral's) keeps it where a one-turn conversation has
 * it, one that refuses it (Gemma 2) gets it at the start of the first user message; `origin`
 * says so. Anything else is refused with the reason.
 *
 * @example
 * import { ChatTemplate, HfTokenizer } from '@mtrl/policy'
 * import { readFileSync } from 'node:fs'
 * declare const tokenizer: HfTokenizer.HfTokenizer // a Gemma 3 folder's
 * const source = readFileSync('fixtures/chat-templates/gemma3.jinja', 'utf8')
 * const template = ChatTemplate.fromJinja(tokenizer, source, { bos_token: '<bos>', eos_token: '<eos>' })
 *
 * @category constructors
 * @since 0.5.0
 */
export const fromJinja = (tokenizer: Tokenizer, source: string, options: JinjaOptions = {}): E.Either<string, ChatTemplate> => {
  const specials = {
    ...(options.bos_token === undefined ? {} : { bos_token: options.bos_token }),
    ...(options.eos_token === undefined ? {} : { eos_token: options.eos_token })
  }
  const s = tokenizer.special
  const stops = new Set([s.eos, s.endOfTurn, s.bos, ...addedIds(tokenizer)])
  try {
    const render = JinjaLayout.renderer(source, specials, options.now)
    if (render.unsupported !== undefined) return E.left(`mtrl cannot render the chat template as transformers renders it: ${render.unsupported}`)
    return JinjaLayout.derive(render, tokenizer, stops)
  } catch (e) {
    return E.left(`the chat template does not parse: ${e instanceof Error ? e.message : String(e)}`)
  }
}

/**
 * The chat template a Hugging Face tokenizer carries (`config.chat_template`: a string, or a list
 * of named templates of which `default` is taken) with its bos/eos strings; undefined without one.
 *
 * @category destructors
 * @since 0.5.0
 */
export const jinjaOf = (tokenizer: Tokenizer): { readonly source: string; readonly options: JinjaOptions } | undefined => {
  const config = (tokenizer as { readonly config?: unknown }).config as Record<string, unknown> | null | undefined
  const t = config?.['chat_template']
  const named = Array.isArray(t) ? (t as ReadonlyArray<{ name?: unknown; template?: unknown }>) : []
  const source = typeof t === 'string' ? t : (named.find((x) => x.name === 'default') ?? named[0])?.template
  if (typeof source !== 'string') return undefined
  const text = (v: unknown): string | undefined =>
    typeof v === 'string' ? v : typeof (v as { content?: unknown } | null)?.content === 'string' ? (v as { content: string }).content : undefined
  return { source, options: { bos_token: text(config?.['bos_token']), eos_token: text(config?.['eos_token']) } }
}

/**
 * The template for a tokenizer: the layout of its own chat template where it carries one that
 * derives ({@link fromJinja}), else one of the two schemes of the module comment (with `origin`
 * giving the reason where a chat template was there).
 *
 * @example
 * import { ChatTemplate, WordTokenizer } from '@mtrl/policy'
 * const tok = WordTokenizer.build({ maxVocab: 512, minCount: 1 })(['look around'])
 * const template = ChatTemplate.make(tok)
 * const prompt = template.prompt('You are in a house.', 'Find the key.')
 *
 * @category constructors
 * @since 0.1.0
 */
export const make = (tokenizer: Tokenizer): ChatTemplate => {
  const jinja = jinjaOf(tokenizer)
  if (jinja === undefined) return scheme(tokenizer)
  const derived = fromJinja(tokenizer, jinja.source, jinja.options)
  if (E.isRight(derived)) return derived.right
  const fallback = scheme(tokenizer)
  return { ...fallback, origin: `${fallback.origin ?? ''}, not the model's chat template: ${derived.left}` }
}

const scheme = (tokenizer: Tokenizer): ChatTemplate => {
  const s = tokenizer.special
  const perRole = new Set([s.system, s.user, s.assistant]).size === 3
  const stopTokens = s.eos === s.endOfTurn ? [s.endOfTurn] : [s.endOfTurn, s.eos]
  if (perRole) {
    const turn = (role: number, text: string): Int32Array => concat([[role], tokenizer.encode(text), [s.endOfTurn]])
    return {
      prompt: (system, firstUser) => concat([[s.bos], turn(s.system, system), turn(s.user, firstUser), [s.assistant]]),
      observation: (text) => concat([turn(s.user, text), [s.assistant]]),
      stopTokens,
      origin: "mtrl's role-token layout"
    }
  }
  const newline = tokenizer.encode('\n')
  const header = (role: string): Int32Array => concat([[s.assistant], tokenizer.encode(`${role}\n`)])
  const turn = (role: string, text: string): Int32Array => concat([[s.user], tokenizer.encode(`${role}\n${text}`), [s.endOfTurn], newline])
  return {
    prompt: (system, firstUser) => concat([turn('system', system), turn('user', firstUser), header('assistant')]),
    // the action ended with endOfTurn; ChatML puts a newline after every end of turn
    observation: (text) => concat([newline, turn('user', text), header('assistant')]),
    stopTokens,
    origin: s.assistant === s.bos ? "mtrl's bos/eos layout (bos role\\ntext eos)" : "mtrl's ChatML layout"
  }
}
