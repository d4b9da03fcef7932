/**
 * Llama JSON (Llama 3.1, 3.2, 3.3 and 4): the whole reply is one JSON call object
 * `{"name": ..., "parameters": {...}}` (or several, separated by `;` or new lines), optionally
 * after `<|python_tag|>`.
 */
import * as Format from './format.js'
import * as Partial from './partial.js'

const pythonTag = '<|python_tag|>'

/** The top-level `{...}` texts of `body`, separated by white space or `;` (strings skipped); `undefined` when anything else is there. */
const objectTexts = (body: string): ReadonlyArray<string> | undefined => {
  const out: string[] = []
  let depth = 0
  let start = -1
  let inString = false
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"' && depth > 0) inString = true
    else if (c === '{') {
      if (depth++ === 0) start = i
    } else if (c === '}' && depth > 0) {
      if (--depth === 0) out.push(body.slice(start, i + 1))
    } else if (depth === 0 && !/[\s;]/.test(c)) return undefined
  }
  return depth === 0 ? out : undefined
}

const parse = (text: string): Format.Parsed => {
  const body = text.trim().replace(pythonTag, '').trim()
  if (!body.startsWith('{')) return { content: text, calls: [] }
  const whole = Format.parseJson(body)
  const pieces = whole !== undefined ? [whole] : (objectTexts(body) ?? []).map(Format.parseJson)
  const calls = pieces.map((j) => Format.callOf(j, ['parameters', 'arguments']))
  return calls.length > 0 && calls.every((c): c is Format.Call => c !== undefined) ? { content: '', calls } : { content: text, calls: [] }
}

export const llamaJson: Format.Format = {
  // Llama's templates write `"parameters": ` themselves and end turns with <|eot_id|> (3.x) or <|eot|> (4)
  detect: (template) => template.includes('"parameters": ') && (template.includes('<|eot_id|>') || template.includes('<|eot|>')),
  parse,
  safePrefix: (text) => {
    const start = text.trimStart()
    const mayCall = start.startsWith('{') || start.startsWith(pythonTag) || (start.length < pythonTag.length && pythonTag.startsWith(start))
    return mayCall ? 0 : text.length
  },
  // the first call (later ones, after `;`, stream whole at the end)
  openCalls: (text) => {
    const call = Partial.jsonCall(text.replace(/^\s*(?:<\|python_tag\|>)?/, ''), ['parameters', 'arguments'])
    return call === undefined ? [] : [call]
  },
  write: (calls) => calls.map((c) => JSON.stringify({ name: c.name, parameters: c.arguments })).join('\n')
}
