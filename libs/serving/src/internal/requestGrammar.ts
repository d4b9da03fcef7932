/**
 * The grammar a chat request asks for, checked: `tool_choice` `required` or a named function
 * (only calls, of those functions, in the model's tool-call format), `response_format`
 * `json_object` or `json_schema` (a schema checked as JSON Schema and, with `strict: true`,
 * against OpenAI's strict rules). With tools offered and `tool_choice` `auto`, a JSON
 * `response_format` still lets the reply be calls instead (what agent frameworks send when an
 * agent has both tools and an output type).
 */
import * as E from 'fp-ts/lib/Either.js'
import type * as Grammar from '../Grammar.js'
import type * as Request from '../Request.js'
import type * as ToolCalls from '../ToolCalls.js'
import * as StrictSchema from './strictSchema.js'
import * as ToolCheck from './toolCheck.js'

const invalid = (message: string, param: string): Request.Invalid => ({ message: `${param}: ${message}`, param, code: null })

type Json = { readonly _tag: 'JsonObject' } | { readonly _tag: 'JsonSchema'; readonly schema: Readonly<Record<string, unknown>>; readonly strict: boolean }

/** The JSON grammar of `response_format` (`undefined` for text), or why it is refused. */
const jsonOf = (format: Request.ResponseFormat | null | undefined): E.Either<Request.Invalid, Json | undefined> => {
  if (format == null || format.type === 'text') return E.right(undefined)
  if (format.type === 'json_object') return E.right({ _tag: 'JsonObject' })
  const { name, schema, strict } = format.json_schema
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) return E.left(invalid('expected 1 to 64 of a-z, A-Z, 0-9, _ and -', 'response_format.json_schema.name'))
  const param = 'response_format.json_schema.schema'
  if (schema == null) return E.left(invalid('a JSON Schema is required', param))
  const bad = ToolCheck.schemaProblem(schema)
  if (bad !== undefined) return E.left(invalid(`not a valid JSON Schema: ${bad}`, param))
  const notStrict = strict === true ? StrictSchema.problem(schema, param) : undefined
  if (notStrict !== undefined) return E.left({ message: notStrict, param, code: null })
  return E.right({ _tag: 'JsonSchema', schema, strict: strict === true })
}

/**
 * The grammar of `request` for a model writing tool calls in `syntax` (`undefined`: no tools
 * are offered), `undefined` when the reply is free.
 */
export const specOf = (request: Request.ChatRequest, syntax: ToolCalls.Syntax | undefined): E.Either<Request.Invalid, Grammar.Spec | undefined> => {
  const json = jsonOf(request.response_format)
  if (E.isLeft(json)) return json
  const choice = request.tool_choice
  const tools = request.tools ?? []
  const forced = choice === 'required' || (typeof choice === 'object' && choice !== null)
  if (syntax === undefined || tools.length === 0 || choice === 'none') return E.right(json.right)
  if (!forced && json.right === undefined) return E.right(undefined)
  const functions = tools
    .filter((t) => choice === 'required' || choice === 'auto' || choice == null || t.function.name === choice.function.name)
    .map((t) => ({ name: t.function.name, ...(t.function.parameters === undefined ? {} : { parameters: t.function.parameters }) }))
  const otherwise = forced || json.right === undefined ? {} : { otherwise: json.right._tag === 'JsonObject' ? { type: 'object' } : json.right.schema }
  return E.right({ _tag: 'ToolCalls', syntax, functions, parallel: request.parallel_tool_calls !== false, ...otherwise })
}
