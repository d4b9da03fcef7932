/**
 * The registry of tool-call formats: how a model writes calls in its reply, and how they are
 * read back into OpenAI `tool_calls` (streaming included: `safePrefix` says how much of a
 * partial reply is surely content). A format is chosen from the chat template's text
 * ({@link detect}); a template that writes tool calls in no known format is refused with the
 * reason, never guessed.
 *
 * | name | writes | models |
 * |---|---|---|
 * | `hermes` | `<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>` | Qwen2.5, Qwen3, Hermes, mtrl's turns |
 * | `qwen-xml` | `<tool_call>\n<function=f>\n<parameter=k>\nv\n</parameter>\n</function>\n</tool_call>` | Qwen3-Coder, Qwen3.5, Nemotron 3 |
 * | `glm-xml` | `<tool_call>f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call>` | GLM-4.5, 4.6, 4.7 |
 * | `mistral` | `[TOOL_CALLS][{"name": ..., "arguments": {...}}]` or `[TOOL_CALLS]f[ARGS]{...}` | Mistral, Mixtral, Magistral, Devstral |
 * | `llama3-json` | `{"name": ..., "parameters": {...}}`, after `<|python_tag|>` or not | Llama 3.1 to 4 |
 * | `harmony` | ` to=functions.f<|channel|>commentary json<|message|>{...}<|call|>`; `final` / `analysis` channels | gpt-oss |
 *
 * A new format is one file in `src/internal/toolFormats/` (a `Format`) and one entry here:
 * `Name` is a closed `keyof`, so a missing entry is a compile error.
 *
 * @since 0.1.0
 */
import * as t from 'io-ts'
import type * as Format from './internal/toolFormats/format.js'
import type * as Partial from './internal/toolFormats/partial.js'
import { glmXml } from './internal/toolFormats/glmXml.js'
import { harmony } from './internal/toolFormats/harmony.js'
import { hermes } from './internal/toolFormats/hermes.js'
import { llamaJson } from './internal/toolFormats/llamaJson.js'
import { mistral } from './internal/toolFormats/mistral.js'
import { qwenXml } from './internal/toolFormats/qwenXml.js'

/**
 * The names of the formats, in the order {@link detect} tries them (the more specific first).
 *
 * @category codecs
 * @since 0.2.0
 */
export const Name = t.keyof({ harmony: null, 'qwen-xml': null, 'glm-xml': null, mistral: null, hermes: null, 'llama3-json': null })
/** @category models @since 0.1.0 */
export type Syntax = t.TypeOf<typeof Name>

/**
 * A call as the model wrote it: the function's name and its arguments (a JSON object).
 *
 * @category models
 * @since 0.1.0
 */
export type Call = Format.Call

/**
 * A reply split into its text and its calls.
 *
 * @category models
 * @since 0.1.0
 */
export type Parsed = Format.Parsed

/**
 * One format: `detect(template)`, `parse(text, tools?)` (tools type the XML formats' values by
 * their JSON Schema), `safePrefix(text)`, `write(calls)`.
 *
 * @category models
 * @since 0.2.0
 */
export type ToolFormat = Format.Format

/**
 * Every format, by name.
 *
 * @category instances
 * @since 0.2.0
 */
export const formats: { readonly [K in Syntax]: ToolFormat } = {
  harmony,
  'qwen-xml': qwenXml,
  'glm-xml': glmXml,
  mistral,
  hermes,
  'llama3-json': llamaJson
}

/**
 * What a chat template says of tool calls: the format it writes them in, none (it renders no
 * tool calls), or an unknown format (the reason names what was seen).
 *
 * @category models
 * @since 0.2.0
 */
export type Detection = { readonly _tag: 'Found'; readonly name: Syntax } | { readonly _tag: 'None' } | { readonly _tag: 'Unknown'; readonly reason: string }

const names = Object.keys(Name.keys) as ReadonlyArray<Syntax>

/**
 * The tool-call format of a Jinja chat template, read from its text.
 *
 * @example
 * import { ToolCalls } from '@mtrl/serving'
 * ToolCalls.detect('{{ "[TOOL_CALLS]" }}{{ message.tool_calls | tojson }}') // { _tag: 'Found', name: 'mistral' }
 *
 * @category destructors
 * @since 0.2.0
 */
export const detect = (template: string): Detection => {
  const name = names.find((n) => formats[n].detect(template))
  if (name !== undefined) return { _tag: 'Found', name }
  if (!template.includes('tool_calls') && !template.includes('tools')) return { _tag: 'None' }
  return {
    _tag: 'Unknown',
    reason: `this chat template mentions tools but writes tool calls in a format this server does not parse (it knows ${names.join(', ')})`
  }
}

/**
 * The reply's content and calls under `syntax`; `tools` type the values of XML formats.
 *
 * @example
 * import { ToolCalls } from '@mtrl/serving'
 * ToolCalls.parse('hermes')('<tool_call>\n{"name": "go", "arguments": {"direction": "north"}}\n</tool_call>')
 * // { content: '', calls: [{ name: 'go', arguments: { direction: 'north' } }] }
 *
 * @category destructors
 * @since 0.1.0
 */
export const parse =
  (syntax: Syntax, tools?: ReadonlyArray<Format.ToolSchema>) =>
  (text: string): Parsed =>
    formats[syntax].parse(text, tools)

/**
 * How much of a partial reply can be streamed as content: text from this index on may still
 * become a tool call (a call's start, possibly cut), or is trailing white space that the parsed
 * content would drop.
 *
 * @category destructors
 * @since 0.1.0
 */
export const safePrefix =
  (syntax: Syntax) =>
  (text: string): number =>
    formats[syntax].safePrefix(text)

/**
 * The calls begun in a partial reply under `syntax`: each one's name, once whole, and its
 * arguments written whole so far, in the model's order (none for a format that streams calls
 * whole at the end).
 *
 * @example
 * import { ToolCalls } from '@mtrl/serving'
 * ToolCalls.openCalls('hermes')('<tool_call>\n{"name": "go", "arguments": {"direction": "north", "spe')
 * // [{ name: 'go', members: [['direction', 'north']] }]
 *
 * @category destructors
 * @since 0.2.0
 */
export const openCalls =
  (syntax: Syntax, tools?: ReadonlyArray<Format.ToolSchema>) =>
  (text: string): ReadonlyArray<Partial.OpenCall> =>
    formats[syntax].openCalls?.(text, tools) ?? []

/**
 * Calls written in `syntax` (what a model of that syntax would reply).
 *
 * @category destructors
 * @since 0.1.0
 */
export const write =
  (syntax: Syntax) =>
  (calls: ReadonlyArray<Call>): string =>
    formats[syntax].write(calls)
