/**
 * Python's text forms of `@huggingface/jinja` runtime values, as Jinja2 under `transformers`
 * writes them: `str()` (what `{{ x }}` and the `string` filter print), `repr()` (items inside a
 * printed list or dict) and `json.dumps` (transformers' `tojson` filter). The library prints
 * `null` / `true` / `2` where Python prints `None` / `True` / `2.0`.
 */

/** The fields of a runtime value this module reads (the library's classes are not exported). */
export interface Value {
  readonly type: string
  readonly value: unknown
}

const isMap = (v: Value): v is Value & { readonly value: Map<string, Value> } => v.value instanceof Map
const items = (v: Value): ReadonlyArray<Value> => v.value as ReadonlyArray<Value>

/** Python's `repr(float)`: the shortest round-trip digits, fixed for 1e-4 <= |x| < 1e16, else `d.ddde+XX`. */
export const floatRepr = (x: number): string => {
  if (Number.isNaN(x)) return 'nan'
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf'
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0'
  const [mantissa, exponent] = Math.abs(x).toExponential().split('e') as [string, string]
  const digits = mantissa.replace('.', '')
  const exp = Number(exponent)
  const sign = x < 0 ? '-' : ''
  if (exp >= 16 || exp < -4) {
    const tail = digits.length > 1 ? `.${digits.slice(1)}` : ''
    return `${sign}${digits[0]}${tail}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0')
  const fraction = digits.slice(exp + 1)
  return `${sign}${whole}.${fraction.length > 0 ? fraction : '0'}`
}

// Characters Python's str.isprintable() rejects: categories C*, Z* except the ASCII space.
const unprintable = /[\p{C}\p{Zl}\p{Zp}]|(?! )\p{Zs}/gu

const escapeChar = (c: string): string => {
  const shortForms: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' }
  const short = shortForms[c]
  if (short !== undefined) return short
  const code = c.codePointAt(0)!
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`
  return `\\U${code.toString(16).padStart(8, '0')}`
}

/** Python's `repr(str)`: single quotes unless the text has `'` and no `"`; unprintable characters escaped. */
export const stringRepr = (s: string): string => {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'"
  const body = s.replace(/[\\\n\r\t]/g, escapeChar).replace(unprintable, escapeChar)
  return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote
}

/** Python's `repr()` of a value inside a container. */
export const repr = (v: Value): string => (v.type === 'StringValue' ? stringRepr(v.value as string) : str(v))

/** Python's `str()`: what `{{ v }}`, `~` and the `string` filter write (`Undefined` writes nothing). */
export const str = (v: Value): string => {
  switch (v.type) {
    case 'StringValue':
      return v.value as string
    case 'NullValue':
      return 'None'
    case 'UndefinedValue':
      return ''
    case 'BooleanValue':
      return v.value === true ? 'True' : 'False'
    case 'IntegerValue':
      return String(v.value)
    case 'FloatValue':
      return floatRepr(v.value as number)
    case 'TupleValue': {
      const xs = items(v).map(repr)
      return xs.length === 1 ? `(${xs[0]},)` : `(${xs.join(', ')})`
    }
    case 'ArrayValue':
      return `[${items(v).map(repr).join(', ')}]`
    default:
      return isMap(v) ? `{${[...v.value.entries()].map(([k, x]) => `${stringRepr(k)}: ${repr(x)}`).join(', ')}}` : String(v.value)
  }
}

/** Options of Python's `json.dumps` that transformers' `tojson` filter passes on. */
export interface DumpOptions {
  readonly indent?: number | null
  readonly separators?: readonly [string, string] | null
  readonly sortKeys?: boolean
  readonly ensureAscii?: boolean
}

const asciiEscape = (s: string): string => s.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

/** Python's `json.dumps` string form (JSON.stringify escapes the same characters the same way, save lone surrogates). */
const dumpString = (s: string, ascii: boolean): string => (ascii ? asciiEscape(JSON.stringify(s)) : JSON.stringify(s))

/** Python's `json.dumps(v, ...)`; floats as `repr` writes them (`2.0`), keys in insertion order unless sorted by code point. */
export const dumps =
  (options: DumpOptions = {}) =>
  (v: Value): string => {
    const indent = options.indent ?? null
    const [itemSep, keySep] = options.separators ?? (indent === null ? [', ', ': '] : [',', ': '])
    const go = (x: Value, depth: number): string => {
      const pad = indent === null ? '' : `\n${' '.repeat(indent * (depth + 1))}`
      const close = indent === null ? '' : `\n${' '.repeat(indent * depth)}`
      const wrap = (open: string, parts: ReadonlyArray<string>, end: string): string =>
        parts.length === 0 ? open + end : `${open}${pad}${parts.join(itemSep + pad)}${close}${end}`
      switch (x.type) {
        case 'StringValue':
          return dumpString(x.value as string, options.ensureAscii === true)
        case 'NullValue':
          return 'null'
        case 'BooleanValue':
          return x.value === true ? 'true' : 'false'
        case 'IntegerValue':
          return String(x.value)
        case 'FloatValue':
          return Number.isFinite(x.value) ? floatRepr(x.value as number) : Number.isNaN(x.value) ? 'NaN' : (x.value as number) > 0 ? 'Infinity' : '-Infinity'
        case 'ArrayValue':
        case 'TupleValue':
          return wrap(
            '[',
            items(x).map((e) => go(e, depth + 1)),
            ']'
          )
        default: {
          if (!isMap(x)) throw new TypeError(`Object of type ${x.type === 'UndefinedValue' ? 'Undefined' : x.type} is not JSON serializable`)
          const entries = [...x.value.entries()]
          const ordered = options.sortKeys === true ? entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : entries
          return wrap(
            '{',
            ordered.map(([k, e]) => `${dumpString(k, options.ensureAscii === true)}${keySep}${go(e, depth + 1)}`),
            '}'
          )
        }
      }
    }
    return go(v, 0)
  }

const pyWhite = '[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]'
const stripPattern = new RegExp(`^${pyWhite}+|${pyWhite}+$`, 'g')

/** Python's `str.strip()`: Python's white space (JavaScript's `trim` also strips U+FEFF, and not U+001C..U+001F, U+0085). */
export const strip = (s: string): string => s.replace(stripPattern, '')
