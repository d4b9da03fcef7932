/**
 * Hermes JSON: `<tool_call>\n{"name": ..., "arguments": {...}}\n</tool_call>` blocks after an
 * optional text, as Qwen2.5, Qwen3, Hermes 2/3 and mtrl's own turn format write them.
 */
import * as Format from './format.js'
import * as Partial from './partial.js'

const open = '<tool_call>'
const close = '</tool_call>'

const parse = (text: string): Format.Parsed =>
  Format.parseBlocks(text, open, close, (inside) => Format.callOf(Format.parseJson(inside.trim()), ['arguments', 'parameters']))

export const hermes: Format.Format = {
  // a JSON call inside the block (XML formats use the same tags with other insides)
  detect: (template) => template.includes(open) && !template.includes('<function=') && !template.includes('<arg_key>'),
  parse,
  safePrefix: (text) => Format.beforeMarker(text, open),
  openCalls: (text) => Format.openBlocks(text, open, close).flatMap((b) => Partial.jsonCall(b, ['arguments', 'parameters']) ?? []),
  write: (calls) => calls.map((c) => `${open}\n${JSON.stringify({ name: c.name, arguments: c.arguments })}\n${close}`).join('\n')
}
