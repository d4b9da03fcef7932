/**
 * Forced tool calls as an xgrammar structural tag: the reply is one call (or, with parallel
 * calls, one or more) of the given functions, written exactly as the tool-call format writes it,
 * with arguments valid against each function's JSON Schema. The layouts follow each format's
 * `write`, so what the grammar admits its `parse` reads back.
 */
import type { StructuralTag, StructuralTagFormat, TagFormat } from '@mlc-ai/web-xgrammar'
import * as E from 'fp-ts/lib/Either.js'
import type * as ToolCalls from '../ToolCalls.js'

/** A function the reply may call. */
export interface Callable {
  readonly name: string
  readonly parameters?: unknown
}

const schemaOf = (f: Callable): Record<string, unknown> | boolean =>
  typeof f.parameters === 'object' && f.parameters !== null ? (f.parameters as Record<string, unknown>) : { type: 'object' }

const json = (f: Callable): StructuralTagFormat => ({ type: 'json_schema', json_schema: schemaOf(f) })

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

const escaped = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')

/** How GLM writes a string-valued property (as text, no quotes): its enum's values, or any text without `<`; `undefined` for other values. */
const textValue = (property: Record<string, unknown>): StructuralTagFormat | undefined => {
  const values = property['enum']
  if (Array.isArray(values) && values.length > 0 && values.every((v) => typeof v === 'string'))
    return { type: 'regex', pattern: (values as ReadonlyArray<string>).map(escaped).join('|') }
  return property['type'] === 'string' ? { type: 'regex', pattern: '[^<]*' } : undefined
}

/**
 * GLM's arguments: each required property as `<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n`, in
 * the schema's order, a string value as text (one of its enum, or any text without `<`), any other as JSON of its schema (the
 * root's `$defs` kept for its `$ref`s). Optional properties are left out: the layout has no
 * grammar of its own in xgrammar, and a fixed order keeps every call valid.
 */
const glmArguments = (f: Callable): StructuralTagFormat => {
  const schema = isObject(f.parameters) ? f.parameters : {}
  const properties = isObject(schema['properties']) ? schema['properties'] : {}
  const required = Array.isArray(schema['required']) ? (schema['required'] as ReadonlyArray<string>) : []
  const defs = {
    ...(schema['$defs'] === undefined ? {} : { $defs: schema['$defs'] }),
    ...(schema['definitions'] === undefined ? {} : { definitions: schema['definitions'] })
  }
  const elements = Object.keys(properties)
    .filter((k) => required.includes(k))
    .flatMap((k): StructuralTagFormat[] => {
      const property = isObject(properties[k]) ? properties[k] : {}
      const value: StructuralTagFormat = textValue(property) ?? { type: 'json_schema', json_schema: { ...property, ...defs } }
      return [{ type: 'const_string', value: `<arg_key>${k}</arg_key>\n<arg_value>` }, value, { type: 'const_string', value: '</arg_value>\n' }]
    })
  return elements.length === 0 ? { type: 'const_string', value: '' } : { type: 'sequence', elements }
}

/** The calls of `functions` in the layout `tag` gives each, joined by `separator`. */
const calls = (functions: ReadonlyArray<Callable>, tag: (f: Callable) => TagFormat, separator: string, parallel: boolean): StructuralTagFormat => ({
  type: 'tags_with_separator',
  tags: functions.map(tag),
  separator,
  at_least_one: true,
  stop_after_first: !parallel
})

/** The structural tag of replies that are only calls of `functions` in `syntax` (or a value of `otherwise`), or why there is none. */
export const structuralTag = (
  syntax: ToolCalls.Syntax,
  functions: ReadonlyArray<Callable>,
  parallel: boolean,
  otherwise?: Readonly<Record<string, unknown>>
): E.Either<string, StructuralTag> => {
  const tag = (format: StructuralTagFormat): StructuralTag => ({
    type: 'structural_tag',
    format: otherwise === undefined ? format : { type: 'or', elements: [format, { type: 'json_schema', json_schema: otherwise as Record<string, unknown> }] }
  })
  switch (syntax) {
    case 'hermes':
      return E.right(
        tag(
          calls(
            functions,
            (f) => ({ type: 'tag', begin: `<tool_call>\n{"name": "${f.name}", "arguments": `, content: json(f), end: '}\n</tool_call>' }),
            '\n',
            parallel
          )
        )
      )
    case 'qwen-xml':
      return E.right(
        tag(
          calls(
            functions,
            (f) => ({
              type: 'tag',
              begin: `<tool_call>\n<function=${f.name}>\n`,
              content: { type: 'qwen_xml_parameter', json_schema: schemaOf(f) },
              end: '</function>\n</tool_call>'
            }),
            '\n',
            parallel
          )
        )
      )
    case 'mistral':
      return E.right(
        tag({
          type: 'tag',
          begin: '[TOOL_CALLS][',
          content: calls(functions, (f) => ({ type: 'tag', begin: `{"name": "${f.name}", "arguments": `, content: json(f), end: '}' }), ', ', parallel),
          end: ']'
        })
      )
    case 'llama3-json':
      return E.right(tag(calls(functions, (f) => ({ type: 'tag', begin: `{"name": "${f.name}", "parameters": `, content: json(f), end: '}' }), '; ', parallel)))
    case 'harmony':
      return E.left(
        "forced tool calls are not available for gpt-oss (harmony): its call layout is written in special tokens (<|channel|>, <|message|>, <|call|>) that the grammar engine's vocabulary leaves out"
      )
    case 'glm-xml':
      return E.right(
        tag(calls(functions, (f) => ({ type: 'tag', begin: `<tool_call>${f.name}\n`, content: glmArguments(f), end: '</tool_call>' }), '\n', parallel))
      )
  }
}
