/**
 * JSON whose whole-number floats are remembered. Python's `json.loads` keeps `2.0` a float and
 * Jinja under `transformers` writes it back as `2.0` (in `tojson` and `{{ }}`); `JSON.parse`
 * makes it the number 2, indistinguishable from `2`. `parse` gives the value `JSON.parse` gives
 * and records, for each object or array holding such a number, the keys it sits at
 * (`isFloat(holder, key)`), which the template renderer reads. The marks live in a WeakMap
 * keyed by the parsed objects: a copy of an object loses them, the objects themselves do not change.
 */

const marks = new WeakMap<object, Set<string>>()

/** Whether `holder[key]` was written as a float literal (`2.0`, `1e3`) in JSON parsed by {@link parse}. */
export const isFloat = (holder: object, key: string | number): boolean => marks.get(holder)?.has(String(key)) === true

const mark = (holder: object, key: string | number): void => {
  const keys = marks.get(holder) ?? new Set<string>()
  keys.add(String(key))
  marks.set(holder, keys)
}

const numberPattern = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y

/**
 * Whether the JSON `text` holds a whole-number float literal (`2.0`, `1e3`) outside its strings:
 * only then does {@link parse} differ from `JSON.parse` (one linear scan; a body whose floats are
 * all in message text is not parsed twice).
 */
export const mayHoldFloats = (text: string): boolean => {
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      numberPattern.lastIndex = i
      const m = numberPattern.exec(text)
      if (m === null) continue
      if ((m[1] !== undefined || m[2] !== undefined) && Number.isInteger(Number(m[0]))) return true
      i = numberPattern.lastIndex - 1
    }
  }
  return false
}
const spaces = /[ \t\n\r]*/y

/**
 * The value of `text`, which must be valid JSON no deeper than the caller's limit (check with
 * `JSON.parse` and the depth scan first: this parser trusts its input and recurses per level).
 */
export const parse = (text: string): unknown => {
  let i = 0
  const skip = (): void => {
    spaces.lastIndex = i
    spaces.exec(text)
    i = spaces.lastIndex
  }
  const string = (): string => {
    const start = i
    i++
    while (text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1
    i++
    return JSON.parse(text.slice(start, i)) as string
  }
  const put = (holder: object, key: string | number, v: unknown, float: boolean): void => {
    Object.defineProperty(holder, key, { value: v, writable: true, enumerable: true, configurable: true })
    if (float) mark(holder, key)
  }
  // [value, written as a whole-number float]
  const value = (): readonly [unknown, boolean] => {
    skip()
    const c = text[i]
    if (c === '{') {
      i++
      const obj: Record<string, unknown> = {}
      skip()
      if (text[i] === '}') return (i++, [obj, false])
      for (;;) {
        skip()
        const key = string()
        skip()
        i++ // ':'
        const [v, float] = value()
        put(obj, key, v, float)
        skip()
        if (text[i++] === '}') return [obj, false]
      }
    }
    if (c === '[') {
      i++
      const arr: unknown[] = []
      skip()
      if (text[i] === ']') return (i++, [arr, false])
      for (;;) {
        const [v, float] = value()
        put(arr, arr.length, v, float)
        skip()
        if (text[i++] === ']') return [arr, false]
      }
    }
    if (c === '"') return [string(), false]
    if (c === 't' || c === 'f' || c === 'n') {
      const word = c === 't' ? 'true' : c === 'f' ? 'false' : 'null'
      i += word.length
      return [c === 't' ? true : c === 'f' ? false : null, false]
    }
    numberPattern.lastIndex = i
    const m = numberPattern.exec(text)!
    i = numberPattern.lastIndex
    const n = Number(m[0])
    return [n, (m[1] !== undefined || m[2] !== undefined) && Number.isInteger(n)]
  }
  return value()[0]
}
