/**
 * OpenAI's rules for a `strict: true` JSON Schema (Structured Outputs): the root is an object;
 * every object sets `additionalProperties: false` and lists every property in `required`
 * (optional fields are written as a union with `null`). A schema that breaks one is refused
 * with the path of the object, as OpenAI refuses it.
 */

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

const describesObject = (s: Record<string, unknown>): boolean =>
  s['type'] === 'object' || (Array.isArray(s['type']) && s['type'].includes('object')) || isObject(s['properties'])

/** The first rule `schema` breaks at `path`, or `undefined`. */
const walk = (schema: unknown, path: string): string | undefined => {
  if (!isObject(schema)) return undefined
  if (describesObject(schema)) {
    if (schema['additionalProperties'] !== false) return `${path}: an object schema must set "additionalProperties": false in strict mode`
    const properties = isObject(schema['properties']) ? Object.keys(schema['properties']) : []
    const required = Array.isArray(schema['required']) ? (schema['required'] as ReadonlyArray<unknown>) : []
    const missing = properties.filter((p) => !required.includes(p))
    if (missing.length > 0) return `${path}.required: strict mode needs every property required (missing ${missing.join(', ')}; make optional ones nullable)`
  }
  const children: Array<readonly [string, unknown]> = []
  for (const key of ['properties', '$defs', 'definitions'])
    if (isObject(schema[key])) for (const [k, v] of Object.entries(schema[key])) children.push([`${path}.${key}.${k}`, v])
  for (const key of ['anyOf', 'prefixItems'])
    if (Array.isArray(schema[key])) (schema[key] as ReadonlyArray<unknown>).forEach((v, i) => children.push([`${path}.${key}.${i}`, v]))
  if (isObject(schema['items'])) children.push([`${path}.items`, schema['items']])
  for (const [p, child] of children) {
    const problem = walk(child, p)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** Why `schema` is not a strict schema (the message starts with the path below `root`), or `undefined`. */
export const problem = (schema: Record<string, unknown>, root: string): string | undefined => {
  if (!describesObject(schema)) return `${root}: the root of a strict schema must be an object ("type": "object")`
  return walk(schema, root)
}
