/**
 * Tool calls written in a model's reply, and how to read them back into OpenAI `tool_calls`:
 *
 * - `hermes`: `<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>` blocks, as Qwen2.5
 *   (and Hermes, and mtrl's own turn format) write them; the content is the text before the
 *   first block;
 * - `llama3-json`: the whole reply is one JSON object `{"name": ..., "parameters": {...}}`,
 *   optionally after `<|python_tag|>`, as Llama 3.1's template asks for.
 *
 * A block that does not parse is left in the content, as vLLM's parsers do.
 *
 * @since 0.1.0
 */

/**
 * @category models
 * @since 0.1.0
 */
export type Syntax = 'hermes' | 'llama3-json'

/**
 * A call as the model wrote it: the function's name and its arguments (a JSON object).
 *
 * @category models
 * @since 0.1.0
 */
export interface Call {
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>>
}

/**
 * A reply split into its text and its calls.
 *
 * @category models
 * @since 0.1.0
 */
export interface Parsed {
  readonly content: string
  readonly calls: ReadonlyArray<Call>
}

const open = '<tool_call>'
const close = '</tool_call>'
const pythonTag = '<|python_tag|>'

const callOf = (json: unknown, argumentsKey: ReadonlyArray<string>): Call | undefined => {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return undefined
  const o = json as Record<string, unknown>
  if (typeof o['name'] !== 'string') return undefined
  const key = argumentsKey.find((k) => k in o)
  const args = key === undefined ? {} : o[key]
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return undefined
  return { name: o['name'], arguments: args as Record<string, unknown> }
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const hermes = (text: string): Parsed => {
  const calls: Call[] = []
  let at = text.indexOf(open)
  const first = at
  while (at >= 0) {
    const end = text.indexOf(close, at + open.length)
    if (end < 0) break
    const call = callOf(parseJson(text.slice(at + open.length, end).trim()), ['arguments', 'parameters'])
    if (call === undefined) return { content: text, calls: [] }
    calls.push(call)
    at = text.indexOf(open, end + close.length)
  }
  return calls.length === 0 ? { content: text, calls } : { content: text.slice(0, first).trimEnd(), calls }
}

const llama3Json = (text: string): Parsed => {
  const body = text.trim().replace(pythonTag, '').trim()
  if (!body.startsWith('{')) return { content: text, calls: [] }
  const json = parseJson(body)
  const many = Array.isArray(json) ? json : [json]
  const calls = many.map((j) => callOf(j, ['parameters', 'arguments']))
  return calls.every((c): c is Call => c !== undefined) && calls.length > 0 ? { content: '', calls } : { content: text, calls: [] }
}

/**
 * The reply's content and calls under `syntax`.
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
  (syntax: Syntax) =>
  (text: string): Parsed => {
    switch (syntax) {
      case 'hermes':
        return hermes(text)
      case 'llama3-json':
        return llama3Json(text)
    }
  }

/**
 * How much of a partial reply can be streamed as content: text from this index on may still
 * become a tool call (a block's start, possibly cut; for `llama3-json` a reply that opens
 * with `{`), or is trailing white space that the parsed content would drop.
 *
 * @category destructors
 * @since 0.1.0
 */
export const safePrefix =
  (syntax: Syntax) =>
  (text: string): number => {
    switch (syntax) {
      case 'hermes': {
        const at = text.indexOf(open)
        if (at >= 0) return trimmedEnd(text, at)
        return trimmedEnd(text, text.length - partialSuffix(text, open))
      }
      case 'llama3-json': {
        const start = text.trimStart()
        if (start.startsWith('{') || start.startsWith(pythonTag) || (start.length < pythonTag.length && pythonTag.startsWith(start))) return 0
        return text.length
      }
    }
  }

/** Length of the longest suffix of `text` that is a proper prefix of `marker`. */
export const partialSuffix = (text: string, marker: string): number => {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) if (text.endsWith(marker.slice(0, n))) return n
  return 0
}

const trimmedEnd = (text: string, end: number): number => {
  let i = end
  while (i > 0 && /\s/.test(text[i - 1]!)) i--
  return i
}

/**
 * A call written in `syntax` (what a model of that syntax would reply), for rendering a
 * conversation where the template has no tool syntax of its own.
 *
 * @category destructors
 * @since 0.1.0
 */
export const write =
  (syntax: Syntax) =>
  (calls: ReadonlyArray<Call>): string => {
    switch (syntax) {
      case 'hermes':
        return calls.map((c) => `${open}\n${JSON.stringify({ name: c.name, arguments: c.arguments })}\n${close}`).join('\n')
      case 'llama3-json':
        return calls.map((c) => JSON.stringify({ name: c.name, parameters: c.arguments })).join('\n')
    }
  }

/**
 * The syntax a Jinja chat template writes tool calls in, read from its text; `undefined` when
 * it renders no tool calls.
 *
 * @category destructors
 * @since 0.1.0
 */
export const syntaxOfTemplate = (template: string): Syntax | undefined => {
  if (template.includes(open)) return 'hermes'
  if (template.includes('tool_calls') && template.includes('parameters')) return 'llama3-json'
  return undefined
}
