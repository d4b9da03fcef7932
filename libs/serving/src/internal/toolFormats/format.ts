/**
 * What every tool-call format provides (see `ToolCalls`), and the pieces the formats share:
 * reading a JSON call object, typing an XML parameter's text by the tool's JSON Schema, and the
 * streaming helpers (how much of a partial reply is surely content).
 */
import * as E from 'fp-ts/lib/Either.js'
import * as BoundedJson from '../boundedJson.js'
import type { OpenCall } from './partial.js'

/** A call as the model wrote it: the function's name and its arguments (a JSON object). */
export interface Call {
  readonly name: string
  readonly arguments: Readonly<Record<string, unknown>>
}

/** A reply split into its text and its calls. */
export interface Parsed {
  readonly content: string
  readonly calls: ReadonlyArray<Call>
}

/** The tools of the request, for formats whose arguments are text to be typed by the schema (XML). */
export interface ToolSchema {
  readonly function: { readonly name: string; readonly parameters?: unknown }
}

/** One format: how a template that writes it is recognised, and how replies in it are read and written. */
export interface Format {
  /** Whether a chat template's text writes tool calls in this format. */
  readonly detect: (template: string) => boolean
  /** The reply's content and calls; a call that does not parse leaves the whole reply as content. */
  readonly parse: (text: string, tools?: ReadonlyArray<ToolSchema>) => Parsed
  /** How much of a partial reply may stream as content: from this index on it may still become a call. */
  readonly safePrefix: (text: string) => number
  /** The calls as a model of this format writes them. */
  readonly write: (calls: ReadonlyArray<Call>) => string
  /**
   * The calls begun in a partial reply, each with its name and its arguments written whole so far
   * (streamed argument by argument); without it, calls stream whole when the reply ends.
   */
  readonly openCalls?: (text: string, tools?: ReadonlyArray<ToolSchema>) => ReadonlyArray<OpenCall>
  /** The format structures every reply, tools or not (harmony's channels): replies are parsed even without tools. */
  readonly everyReply?: boolean
}

export const parseJson = (text: string): unknown => {
  const json = BoundedJson.parse(text)
  return E.isRight(json) ? json.right : undefined
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

/** A call from a JSON object `{name, <argumentsKey>: {...}}` (the first key present of `argumentsKeys`), or `undefined`. */
export const callOf = (json: unknown, argumentsKeys: ReadonlyArray<string>): Call | undefined => {
  if (!isObject(json) || typeof json['name'] !== 'string') return undefined
  const key = argumentsKeys.find((k) => k in json)
  const args = key === undefined ? {} : json[key]
  // some models write the arguments as a JSON string
  const object = typeof args === 'string' ? parseJson(args) : args
  return isObject(object) ? { name: json['name'], arguments: object } : undefined
}

/** Length of the longest suffix of `text` that is a proper prefix of `marker`. */
export const partialSuffix = (text: string, marker: string): number => {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) if (text.endsWith(marker.slice(0, n))) return n
  return 0
}

/** `end` moved back over white space (the parsed content drops trailing white space). */
export const trimmedEnd = (text: string, end: number): number => {
  let i = end
  while (i > 0 && /\s/.test(text[i - 1]!)) i--
  return i
}

/** The streaming cut of a format whose calls start with `marker`: before the marker, or before a cut-off start of it. */
export const beforeMarker = (text: string, marker: string): number => {
  const at = text.indexOf(marker)
  return trimmedEnd(text, at >= 0 ? at : text.length - partialSuffix(text, marker))
}

const typeOfProperty = (tools: ReadonlyArray<ToolSchema> | undefined, name: string, key: string): unknown => {
  const parameters = tools?.find((t) => t.function.name === name)?.function.parameters
  const property = isObject(parameters) && isObject(parameters['properties']) ? parameters['properties'][key] : undefined
  return isObject(property) ? property['type'] : undefined
}

/**
 * An XML parameter's text as the value its schema types it (vLLM's rule): a `string` stays text,
 * numbers, booleans, objects and arrays are read as JSON when they parse; without a schema, JSON
 * when the text is JSON, else the text.
 */
export const typedValue = (tools: ReadonlyArray<ToolSchema> | undefined, name: string, key: string, text: string): unknown => {
  const type = typeOfProperty(tools, name, key)
  const types = Array.isArray(type) ? type : [type]
  if (types.includes('string')) return text
  if (text === 'null' && (type === undefined || types.includes('null'))) return null
  const json = parseJson(text)
  return json === undefined ? text : json
}

/**
 * A reply of `open ... close` blocks after an optional text: each block's inside read by `callOf`;
 * one that does not read leaves the whole reply as content (as vLLM's parsers do).
 */
export const parseBlocks = (text: string, open: string, close: string, callOf: (inside: string) => Call | undefined): Parsed => {
  const calls: Call[] = []
  const first = text.indexOf(open)
  for (let at = first; at >= 0;) {
    const found = text.indexOf(close, at + open.length)
    const end = found < 0 ? text.length : found // an unclosed last block counts when it reads whole (vLLM's rule)
    const call = callOf(text.slice(at + open.length, end))
    if (call === undefined) return { content: text, calls: [] }
    calls.push(call)
    at = text.indexOf(open, end + close.length)
  }
  return calls.length === 0 ? { content: text, calls } : { content: text.slice(0, first).trimEnd(), calls }
}

/** The blocks after `open` in a partial reply, each cut at its `close` (the last one possibly unclosed). */
export const openBlocks = (text: string, open: string, close: string): ReadonlyArray<string> =>
  text
    .split(open)
    .slice(1)
    .map((b) => {
      const at = b.indexOf(close)
      return at < 0 ? b : b.slice(0, at)
    })

/** The whole `pattern` pairs (group 1 the key, group 2 the value text) of an XML call body so far, typed by {@link typedValue}. */
export const xmlMembers = (
  tools: ReadonlyArray<ToolSchema> | undefined,
  name: string,
  body: string,
  pattern: RegExp
): ReadonlyArray<readonly [string, unknown]> => [...body.matchAll(pattern)].map((p) => [p[1]!.trim(), typedValue(tools, name, p[1]!.trim(), p[2]!)] as const)

/**
 * The arguments of an XML call body: every `pattern` match (group 1 the key, group 2 the value
 * text) typed by {@link typedValue}; `undefined` when anything but those pairs is left in `body`.
 */
export const xmlArguments = (
  tools: ReadonlyArray<ToolSchema> | undefined,
  name: string,
  body: string,
  pattern: RegExp
): Record<string, unknown> | undefined => {
  const args: Record<string, unknown> = {}
  let rest = body
  for (const p of body.matchAll(pattern)) {
    args[p[1]!.trim()] = typedValue(tools, name, p[1]!.trim(), p[2]!)
    rest = rest.replace(p[0], '')
  }
  return rest.trim() === '' ? args : undefined
}

/** A value as an XML call writes it: a string as is, anything else as JSON. */
export const valueText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value))
