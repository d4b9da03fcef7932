/**
 * From an OpenAI conversation (messages and tools) to the prompt's token ids, as the model
 * expects them, and the tokens that end a reply:
 *
 * - `jinja`: the model's own Hugging Face chat template (`chat_template` of
 *   tokenizer_config.json), rendered with `@huggingface/jinja` (the renderer transformers.js
 *   uses) exactly as Python `transformers`' `apply_chat_template` renders it, then encoded;
 * - `turns`: mtrl's token-level chat template (`ChatTemplate.make`: a role token or ChatML header
 *   per turn), the layout mtrl's rollouts and SFT data use, so a model trained by `mtrl train`
 *   sees the token sequence it was trained on. Tool calls are written as `hermes` blocks.
 *
 * @since 0.1.0
 */
import { Tokenizer } from '@mtrl/core'
import { ChatTemplate, Jinja } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import type * as Replies from './Replies.js'
import * as ToolCalls from './ToolCalls.js'

/**
 * A tool call of an assistant message; `arguments` is the parsed JSON object.
 *
 * @category models
 * @since 0.1.0
 */
export interface ToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>>
}

/**
 * One message, its content flattened to text; `name` as the request gave it (templates may print it).
 *
 * @category models
 * @since 0.1.0
 */
export type Message = (
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string }
  | {
      readonly role: 'assistant'
      readonly content: string
      readonly toolCalls: ReadonlyArray<ToolCall>
      /**
       * The message's `content` is `null` as transformers receives it (a Jinja template sees none,
       * which Python prints `None`; `content` is then ''). Requests never set it: vLLM passes a null
       * content to the template as '', and so does the server.
       */
      readonly nullContent?: boolean
    }
  | { readonly role: 'tool'; readonly content: string; readonly toolCallId: string }
) & { readonly name?: string }

/**
 * A function tool in OpenAI's format (`{"type": "function", "function": {...}}`), as given.
 *
 * @category models
 * @since 0.1.0
 */
export interface Tool {
  readonly type: 'function'
  readonly function: { readonly name: string; readonly description?: string | undefined; readonly parameters?: unknown }
}

/**
 * @category models
 * @since 0.1.0
 */
export interface Conversation {
  readonly messages: ReadonlyArray<Message>
  readonly tools: ReadonlyArray<Tool>
  /** Extra template variables (a request's `chat_template_kwargs`: `enable_thinking`, `date_string` ...); `jinja` only. */
  readonly variables?: Readonly<Record<string, unknown>>
}

/**
 * A chat format: `render` gives the prompt ids (ending where the assistant's reply starts) or
 * why the conversation cannot be rendered; `toolSyntax` is how replies write tool calls
 * (`undefined`: this format has no tools).
 *
 * @category models
 * @since 0.1.0
 */
export interface ChatFormat {
  readonly kind: 'jinja' | 'turns'
  /**
   * `sampled(before, reply)`: the ids sampled for an assistant message the server wrote after the
   * prompt `before` (the ids rendered so far), used in place of its re-encoding (`turns` only: a
   * Jinja template renders text, which is then encoded whole).
   */
  readonly render: (conversation: Conversation, sampled?: (before: Int32Array, reply: Replies.Reply) => Int32Array | undefined) => E.Either<string, Int32Array>
  /** The prompt as text (for `jinja`, what was encoded; for `turns`, the decoded ids). */
  readonly text: (conversation: Conversation, options?: TextOptions) => E.Either<string, string>
  readonly stopTokens: ReadonlyArray<number>
  /** The tool-call format of replies: found, none (no tools), or unknown (tools are refused with the reason). */
  readonly toolSyntax: ToolCalls.Detection
}

/**
 * Options of `text` (for `jinja`): `addGenerationPrompt` (default true; false renders a finished
 * conversation, e.g. SFT data) and extra template variables (Llama 3.1's `date_string`,
 * `tools_in_user_message`).
 *
 * @category models
 * @since 0.1.0
 */
export interface TextOptions {
  readonly addGenerationPrompt?: boolean
  readonly variables?: Readonly<Record<string, unknown>>
}

const endMarkers = ['<|im_end|>', '<|eot_id|>', '<|eom_id|>', '<|endoftext|>', '<|end_of_text|>', '</s>', '<end_of_turn>', '<|return|>', '<|call|>']

/** Ids of the end-of-reply markers this tokenizer has as single tokens. */
const markerIds = (tokenizer: Tokenizer.Tokenizer): number[] =>
  endMarkers.flatMap((m) => {
    const ids = tokenizer.encode(m)
    return ids.length === 1 && tokenizer.decode(ids) === m ? [ids[0]!] : []
  })

/**
 * The token the template ends an assistant message with, where the rollout layout derives from it
 * (`ChatTemplate.fromJinja`: Phi-3's `<|end|>`, which is neither its eos nor a common marker), so
 * that a served reply stops where a rollout's does.
 */
const endOfReply = (source: string, tokenizer: Tokenizer.Tokenizer, specials: { readonly bos_token?: string; readonly eos_token?: string }): number[] => {
  const derived = ChatTemplate.fromJinja(tokenizer, source, specials)
  return E.isRight(derived) ? [derived.right.stopTokens[0]!] : []
}

const templateMessage = (m: Message): Record<string, unknown> => (m.name === undefined ? templateFields(m) : { ...templateFields(m), name: m.name })

const templateFields = (m: Message): Record<string, unknown> => {
  switch (m.role) {
    case 'assistant': {
      const content = m.nullContent === true ? null : m.content
      return m.toolCalls.length === 0
        ? { role: m.role, content }
        : {
            role: m.role,
            content,
            tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }))
          }
    }
    case 'tool':
      return { role: m.role, content: m.content, tool_call_id: m.toolCallId }
    default:
      return { role: m.role, content: m.content }
  }
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * What a Jinja template receives besides the conversation: the tokenizer's `bos_token` and
 * `eos_token` strings (from tokenizer_config.json; left out when absent, as transformers' special
 * tokens map leaves them out), and the clock `strftime_now` reads (default: now).
 *
 * @category models
 * @since 0.1.0
 */
export interface JinjaOptions {
  readonly bos_token?: string | undefined
  readonly eos_token?: string | undefined
  readonly now?: () => Date
}

/**
 * The format of a Hugging Face chat template, rendered as Python `transformers` renders it
 * (`apply_chat_template`: Jinja2 semantics for none, floats, `string`, `trim`, `tojson`, loops over
 * strings; `tools` and `documents` none when not given). Tool-call arguments and tool schemas
 * parsed from a request keep their whole-number floats (`2.0`).
 *
 * @example
 * import { ChatFormat } from '@mtrl/serving'
 * declare const tokenizer: import('@mtrl/core').Tokenizer.Tokenizer
 * const format = ChatFormat.jinja('{% for m in messages %}{{ m.content }}{% endfor %}', tokenizer, { eos_token: '</s>' })
 *
 * @category constructors
 * @since 0.1.0
 */
export const jinja = (source: string, tokenizer: Tokenizer.Tokenizer, options: JinjaOptions = {}): ChatFormat => {
  const template = Jinja.compile(source)
  const mentionsTools = source.includes('tools')
  const specials = {
    ...(options.bos_token === undefined ? {} : { bos_token: options.bos_token }),
    ...(options.eos_token === undefined ? {} : { eos_token: options.eos_token })
  }
  const text = (c: Conversation, textOptions: TextOptions = {}): E.Either<string, string> => {
    if (c.tools.length > 0 && !mentionsTools) return E.left("this model's chat template has no tools: send the request without `tools`")
    if (template.unsupported !== undefined)
      return E.left(`this model's chat template cannot be rendered by mtrl as transformers renders it: ${template.unsupported}`)
    try {
      const variables = {
        ...specials,
        messages: c.messages.map(templateMessage),
        tools: c.tools.length > 0 ? c.tools : null,
        documents: null,
        add_generation_prompt: textOptions.addGenerationPrompt ?? true,
        ...c.variables,
        ...textOptions.variables
      }
      return E.right(Jinja.render(variables, options.now)(template))
    } catch (e) {
      return E.left(`the chat template cannot render this conversation: ${errorText(e)}`)
    }
  }
  return {
    kind: 'jinja',
    text,
    render: (c) => E.map(tokenizer.encode)(text(c)),
    stopTokens: [...new Set([tokenizer.special.eos, tokenizer.special.endOfTurn, ...markerIds(tokenizer), ...endOfReply(source, tokenizer, specials)])],
    toolSyntax: ToolCalls.detect(source)
  }
}

const toolLine = (tools: ReadonlyArray<Tool>): string =>
  tools.length === 0
    ? ''
    : `Tools: ${tools
        .map((t) => {
          const props = (t.function.parameters as { properties?: Record<string, unknown> } | undefined)?.properties ?? {}
          return `${t.function.name}(${Object.keys(props).join(', ')})`
        })
        .join(' ')}. Call one as <tool_call>{"name": ..., "arguments": {...}}</tool_call>.`

/** Consecutive messages of the same side (user and tool vs assistant) as one turn's text. */
const turnsOf = (messages: ReadonlyArray<Message>): ReadonlyArray<{ readonly assistant: boolean; readonly text: string; readonly reply?: Replies.Reply }> => {
  const turns: Array<{ assistant: boolean; text: string; reply?: Replies.Reply }> = []
  for (const m of messages) {
    const assistant = m.role === 'assistant'
    const text =
      m.role === 'assistant' && m.toolCalls.length > 0 ? [m.content, ToolCalls.write('hermes')(m.toolCalls)].filter((s) => s.length > 0).join('\n') : m.content
    const last = turns[turns.length - 1]
    if (last !== undefined && last.assistant === assistant && !assistant) last.text = `${last.text}\n${text}`
    else turns.push(m.role === 'assistant' ? { assistant, text, reply: { content: m.content, toolCalls: m.toolCalls } } : { assistant, text })
  }
  return turns
}

/**
 * The format of mtrl's token-level template for `tokenizer` (what `mtrl train` agents use): the
 * leading system messages form the system turn (plus a line naming the tools), then user and
 * tool messages are observations and assistant messages are replies ended by the stop token,
 * exactly as a rollout lays them out. The last message must be a user or tool message.
 *
 * @category constructors
 * @since 0.1.0
 */
export const turns = (tokenizer: Tokenizer.Tokenizer): ChatFormat => {
  const template = ChatTemplate.make(tokenizer)
  const stop = template.stopTokens[0]!
  const render = (c: Conversation, sampled?: (before: Int32Array, reply: Replies.Reply) => Int32Array | undefined): E.Either<string, Int32Array> => {
    const firstOther = c.messages.findIndex((m) => m.role !== 'system')
    const systems = firstOther < 0 ? c.messages : c.messages.slice(0, firstOther)
    const rest = firstOther < 0 ? [] : c.messages.slice(firstOther)
    if (rest.some((m) => m.role === 'system')) return E.left('system messages must come first for this model')
    const system = [...systems.map((m) => m.content), toolLine(c.tools)].filter((s) => s.length > 0).join('\n')
    const ts = turnsOf(rest)
    if (ts.length === 0 || ts[0]!.assistant) return E.left('the conversation must start (after system messages) with a user message for this model')
    if (ts[ts.length - 1]!.assistant) return E.left('the last message must be a user or tool message for this model')
    const parts: Int32Array[] = [template.prompt(system, ts[0]!.text)]
    for (const turn of ts.slice(1)) {
      const exact = turn.reply === undefined || sampled === undefined ? undefined : sampled(Tokenizer.concat(parts), turn.reply)
      if (!turn.assistant) parts.push(template.observation(turn.text))
      else if (exact !== undefined) parts.push(exact)
      else parts.push(tokenizer.encode(turn.text), Int32Array.of(stop))
    }
    return E.right(Tokenizer.concat(parts))
  }
  return {
    kind: 'turns',
    render,
    text: (c) => E.map(tokenizer.decode)(render(c)),
    stopTokens: template.stopTokens,
    toolSyntax: { _tag: 'Found', name: 'hermes' }
  }
}

/**
 * The chat template text of a Hugging Face `tokenizer_config.json` (a string, or a list of named
 * templates of which `default` is taken), if it has one.
 *
 * @category destructors
 * @since 0.1.0
 */
export const templateOfConfig = (config: unknown): string | undefined => {
  const t = (config as { chat_template?: unknown } | null | undefined)?.chat_template
  if (typeof t === 'string') return t
  if (Array.isArray(t)) {
    const named = t as ReadonlyArray<{ name?: unknown; template?: unknown }>
    const pick = named.find((x) => x.name === 'default') ?? named[0]
    return typeof pick?.template === 'string' ? pick.template : undefined
  }
  return undefined
}

const tokenText = (value: unknown): string | undefined => {
  if (typeof value === 'string') return value
  const content = (value as { content?: unknown } | null | undefined)?.content
  return typeof content === 'string' ? content : undefined
}

/**
 * The format a model is served with: its tokenizer's own Jinja chat template (a Hugging Face
 * tokenizer whose tokenizer_config.json has `chat_template`), or `template` when given (a
 * template file's text), else mtrl's {@link turns}.
 *
 * @example
 * import { ChatFormat } from '@mtrl/serving'
 * declare const tokenizer: import('@mtrl/core').Tokenizer.Tokenizer
 * const format = ChatFormat.forTokenizer(tokenizer) // turns for a word tokenizer
 *
 * @category constructors
 * @since 0.1.0
 */
export const forTokenizer = (tokenizer: Tokenizer.Tokenizer, template?: string): ChatFormat => {
  const config = (tokenizer as { readonly config?: unknown }).config
  const source = template ?? templateOfConfig(config)
  if (source === undefined) return turns(tokenizer)
  const cfg = (config ?? {}) as Record<string, unknown>
  return jinja(source, tokenizer, { bos_token: tokenText(cfg['bos_token']), eos_token: tokenText(cfg['eos_token']) })
}
