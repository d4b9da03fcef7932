/**
 * The checks OpenAI makes on a request's tools before anything runs: each function's name is
 * 1 to 64 of `a-z A-Z 0-9 _ -` and unique, its `parameters` is a valid JSON Schema (checked
 * against its draft's meta-schema by Ajv, `$ref`s resolved), and a `tool_choice` naming a
 * function names one of them.
 */
import { Ajv, type AnySchema } from 'ajv'
import { Ajv2019 } from 'ajv/dist/2019.js'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { Invalid } from '../Request.js'

/** A tool as the request codec reads it. */
export interface ToolLike {
  readonly function: { readonly name: string; readonly parameters?: Readonly<Record<string, unknown>> | undefined }
}

const namePattern = /^[A-Za-z0-9_-]{1,64}$/

// one validator per draft: no formats or user keywords registered, unknown keywords allowed
const options = { strict: false, allErrors: false, validateFormats: false } as const
const drafts = { draft7: new Ajv(options), draft2019: new Ajv2019(options), draft2020: new Ajv2020(options) }

/** The validators a schema's `$schema` asks for (none named: draft-07 or 2020-12, whichever accepts it). */
const validatorsFor = (schema: Readonly<Record<string, unknown>>): ReadonlyArray<Ajv> | string => {
  const declared = schema['$schema']
  if (declared === undefined) return [drafts.draft7, drafts.draft2020]
  if (typeof declared !== 'string') return '$schema: expected a string'
  if (/draft-0[67]\/schema/.test(declared)) return [drafts.draft7]
  if (declared.includes('2019-09')) return [drafts.draft2019]
  if (declared.includes('2020-12')) return [drafts.draft2020]
  return `$schema: ${declared} is not a draft this server reads (draft-06, draft-07, 2019-09, 2020-12)`
}

/** Why `schema` is not a JSON Schema, or `undefined` when it is one. */
export const schemaProblem = (schema: Readonly<Record<string, unknown>>): string | undefined => {
  const validators = validatorsFor(schema)
  if (typeof validators === 'string') return validators
  let problem = ''
  for (const ajv of validators) {
    try {
      // compiling checks the schema against its meta-schema and resolves every $ref
      ajv.compile(schema as AnySchema)
      return undefined
    } catch (error) {
      problem = (error as Error).message.replace(/^schema is invalid: /, '')
    } finally {
      ajv.removeSchema(schema as AnySchema) // the validators keep nothing between requests
    }
  }
  return problem
}

const invalid = (message: string, param: string): Invalid => ({ message, param, code: null })

/** The first problem of `tools` (with `tool_choice`), or `undefined`. */
export const problem = (tools: ReadonlyArray<ToolLike>, toolChoice: unknown): Invalid | undefined => {
  const seen = new Set<string>()
  for (const [i, tool] of tools.entries()) {
    const { name, parameters } = tool.function
    if (!namePattern.test(name))
      return invalid(
        `tools.${i}.function.name: ${JSON.stringify(name)} is not a function name; expected 1 to 64 of a-z, A-Z, 0-9, _ and -`,
        `tools.${i}.function.name`
      )
    if (seen.has(name)) return invalid(`tools.${i}.function.name: ${name} is given twice; function names must be unique`, `tools.${i}.function.name`)
    seen.add(name)
    const bad = parameters === undefined ? undefined : schemaProblem(parameters)
    if (bad !== undefined) return invalid(`tools.${i}.function.parameters: not a valid JSON Schema: ${bad}`, `tools.${i}.function.parameters`)
  }
  if (toolChoice === 'required' && tools.length === 0) return invalid('tool_choice: "required" needs at least one tool in `tools`', 'tool_choice')
  if (typeof toolChoice === 'object' && toolChoice !== null) {
    const named = (toolChoice as { readonly function: { readonly name: string } }).function.name
    if (!seen.has(named))
      return invalid(
        `tool_choice: names the function ${JSON.stringify(named)}, which is not in \`tools\` (${tools.length === 0 ? 'no tools were given' : [...seen].join(', ')})`,
        'tool_choice'
      )
  }
  return undefined
}
