/**
 * GLM XML (GLM-4.5, 4.6, 4.7): each call is `<tool_call>NAME\n<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>\n...</tool_call>`,
 * a value written as text (a string as is, anything else as JSON) and read back by the tool's
 * JSON Schema. The content is the text before the first call.
 */
import * as Format from './format.js'
import type * as Partial from './partial.js'

const open = '<tool_call>'
const close = '</tool_call>'
const pair = /<arg_key>([\s\S]*?)<\/arg_key>\s*<arg_value>([\s\S]*?)<\/arg_value>/g

/** One block's call, or `undefined` when it is not a name then key/value pairs only. */
const callOf = (inside: string, tools: ReadonlyArray<Format.ToolSchema> | undefined): Format.Call | undefined => {
  const at = inside.indexOf('<arg_key>')
  const name = (at < 0 ? inside : inside.slice(0, at)).trim()
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) return undefined
  const args = Format.xmlArguments(tools, name, at < 0 ? '' : inside.slice(at), pair)
  return args === undefined ? undefined : { name, arguments: args }
}

const parse = (text: string, tools?: ReadonlyArray<Format.ToolSchema>): Format.Parsed =>
  Format.parseBlocks(text, open, close, (inside) => callOf(inside, tools))

export const glmXml: Format.Format = {
  detect: (template) => template.includes(open) && template.includes('<arg_key>'),
  parse,
  safePrefix: (text) => Format.beforeMarker(text, open),
  // the name is whole once a new line or the first <arg_key> follows it
  openCalls: (text, tools) =>
    Format.openBlocks(text, open, close).flatMap((b): Partial.OpenCall[] => {
      const m = /^([^\n<]+)(?=\n|<arg_key>)/.exec(b)
      return m === null ? [] : [{ name: m[1]!.trim(), members: Format.xmlMembers(tools, m[1]!.trim(), b.slice(m[0].length), pair) }]
    }),
  write: (calls) =>
    calls
      .map(
        (c) =>
          `${open}${c.name}\n${Object.entries(c.arguments)
            .map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${Format.valueText(v)}</arg_value>\n`)
            .join('')}${close}`
      )
      .join('\n')
}
