/**
 * Qwen XML (Qwen3-Coder, Qwen3.5, Nemotron 3): each call is
 * `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n...</function>\n</tool_call>`,
 * a value written as text (a string as is, anything else as JSON) and read back by the tool's
 * JSON Schema. The content is the text before the first call.
 */
import * as Format from './format.js'
import type * as Partial from './partial.js'

const open = '<tool_call>'
const close = '</tool_call>'
const block = /^\s*<function=([^>\n]+)>([\s\S]*?)<\/function>\s*$/
const parameter = /<parameter=([^>\n]+)>\n?([\s\S]*?)\n?<\/parameter>/g

/** One block's call, or `undefined` when it is not `<function=...>` with parameters only. */
const callOf = (inside: string, tools: ReadonlyArray<Format.ToolSchema> | undefined): Format.Call | undefined => {
  const m = block.exec(inside)
  if (m === null) return undefined
  const name = m[1]!.trim()
  const args = Format.xmlArguments(tools, name, m[2]!, parameter)
  return args === undefined ? undefined : { name, arguments: args }
}

const parse = (text: string, tools?: ReadonlyArray<Format.ToolSchema>): Format.Parsed =>
  Format.parseBlocks(text, open, close, (inside) => callOf(inside, tools))

export const qwenXml: Format.Format = {
  detect: (template) => template.includes(open) && template.includes('<function='),
  parse,
  safePrefix: (text) => Format.beforeMarker(text, open),
  openCalls: (text, tools) =>
    Format.openBlocks(text, open, close).flatMap((b): Partial.OpenCall[] => {
      const m = /^\s*<function=([^>\n]+)>/.exec(b)
      return m === null ? [] : [{ name: m[1]!.trim(), members: Format.xmlMembers(tools, m[1]!.trim(), b.slice(m[0].length), parameter) }]
    }),
  write: (calls) =>
    calls
      .map(
        (c) =>
          `${open}\n<function=${c.name}>\n${Object.entries(c.arguments)
            .map(([k, v]) => `<parameter=${k}>\n${Format.valueText(v)}\n</parameter>\n`)
            .join('')}</function>\n${close}`
      )
      .join('\n')
}
