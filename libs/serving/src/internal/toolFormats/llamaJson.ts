/**
 * Llama JSON (Llama 3.1, 3.2, 3.3 and 4): the whole reply is one JSON call object
 * `{"name": ..., "parameters": {...}}` (or several, separated by `;` or new lines), optionally
 * after `<|python_tag|>`.
 */
import * as Format from './format.js'

const pythonTag = '<|python_tag|>'

const parse = (text: string): Format.Parsed => {
  const body = text.trim().replace(pythonTag, '').trim()
  if (!body.startsWith('{')) return { content: text, calls: [] }
  const whole = Format.parseJson(body)
  const pieces = whole !== undefined ? (Array.isArray(whole) ? whole : [whole]) : body.split(/\s*;\s*|\n+/).map(Format.parseJson)
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
  write: (calls) => calls.map((c) => JSON.stringify({ name: c.name, parameters: c.arguments })).join('\n')
}
