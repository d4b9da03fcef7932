/**
 * Calls of a reply still being written, for streaming their arguments one by one as vLLM's
 * streaming parsers do: a call's name once it is whole, then each argument (a key and its value)
 * once its value is whole. `members` are always a prefix of the arguments the finished reply
 * parses to, in the order the model wrote them.
 */

/** A call begun in a partial reply: its name and the arguments written whole so far. */
export interface OpenCall {
  readonly name: string
  readonly members: ReadonlyArray<readonly [string, unknown]>
}

const spaces = /[ \t\n\r]*/y
const scalar = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y

const skip = (text: string, i: number): number => {
  spaces.lastIndex = i
  spaces.exec(text)
  return spaces.lastIndex
}

/** The index after the string starting at `i` (a `"`), or -1 when it is not closed yet. */
const stringEnd = (text: string, i: number): number => {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j)
    if (c === 0x5c) j++
    else if (c === 0x22) return j + 1
  }
  return -1
}

/** The index after the JSON value starting at `i`, or -1 when it is not whole yet (a number or literal counts once followed by a character). */
const valueEnd = (text: string, i: number): number => {
  const c = text[i]
  if (c === undefined) return -1
  if (c === '"') return stringEnd(text, i)
  if (c === '{' || c === '[') {
    let depth = 0
    for (let j = i; j < text.length; j++) {
      const d = text[j]
      if (d === '"') {
        const end = stringEnd(text, j)
        if (end < 0) return -1
        j = end - 1
      } else if (d === '{' || d === '[') depth++
      else if (d === '}' || d === ']') {
        depth--
        if (depth === 0) return j + 1
      }
    }
    return -1
  }
  scalar.lastIndex = i
  const m = scalar.exec(text)
  return m === null || scalar.lastIndex >= text.length ? -1 : scalar.lastIndex
}

/**
 * The members of the JSON object that `text` starts (after white space) whose values are whole
 * and followed by `,` or `}`; stops at anything that is not JSON.
 */
export const jsonMembers = (text: string): Array<readonly [string, unknown]> => {
  const out: Array<readonly [string, unknown]> = []
  let i = skip(text, 0)
  if (text[i] !== '{') return out
  i++
  for (;;) {
    i = skip(text, i)
    if (text[i] !== '"') return out
    const keyStart = i
    const keyEnd = stringEnd(text, i)
    if (keyEnd < 0) return out
    i = skip(text, keyEnd)
    if (text[i] !== ':') return out
    const start = skip(text, i + 1)
    const end = valueEnd(text, start)
    if (end < 0) return out
    const next = skip(text, end)
    if (text[next] !== ',' && text[next] !== '}') return out
    try {
      out.push([JSON.parse(text.slice(keyStart, keyEnd)) as string, JSON.parse(text.slice(start, end)) as unknown])
    } catch {
      return out
    }
    if (text[next] === '}') return out
    i = next + 1
  }
}

/**
 * The call whose JSON object starts `text` (`{"name": "f", "<argumentsKey>": {...`): its name once
 * the arguments object has begun, and its whole members; `undefined` before that.
 */
export const jsonCall = (text: string, argumentsKeys: ReadonlyArray<string>): OpenCall | undefined => {
  const keys = argumentsKeys.join('|')
  const head = new RegExp(`^\\s*\\{\\s*"name"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")\\s*,\\s*"(?:${keys})"\\s*:\\s*(?=\\{)`).exec(text)
  if (head === null) return undefined
  return { name: JSON.parse(head[1]!) as string, members: jsonMembers(text.slice(head[0].length)) }
}

/** Whether a key is an array index (`"0"`, `"12"`): a JavaScript object lists those first, not where they were written. */
export const indexLike = (key: string): boolean => /^(?:0|[1-9]\d*)$/.test(key)
