/**
 * gpt-oss's harmony format. The prompt ends with `<|start|>assistant`; the reply is one or more
 * messages, each a header (`<|channel|>analysis`, `<|channel|>final`, or a call's recipient
 * `to=functions.f` with `<|channel|>commentary json`, before or after the channel) then
 * `<|message|>` and the body, closed by `<|end|>` (then `<|start|>assistant` and the next
 * message), `<|call|>` or `<|return|>` (the stop tokens, often cut off). As vLLM's harmony parser
 * reads it: a message to `functions.f` is a call whose body is the JSON arguments; `final` and
 * `commentary` without a recipient are content; `analysis` is reasoning, left out of the content.
 * A reply without harmony markers is content as it stands.
 */
import * as Format from './format.js'
import * as Partial from './partial.js'

const start = '<|start|>assistant'
const channel = '<|channel|>'
const message = '<|message|>'
const ends = /<\|end\|>|<\|call\|>|<\|return\|>/

interface Message {
  readonly channel: string | undefined
  readonly recipient: string | undefined
  readonly body: string
}

/** The messages of a reply (its text after the prompt's `<|start|>assistant`), or `undefined` when it holds no harmony header. */
const messagesOf = (text: string): ReadonlyArray<Message> | undefined => {
  if (!text.includes(message)) return undefined
  const out: Message[] = []
  for (const part of text.split(start)) {
    if (part.trim() === '') continue
    const at = part.indexOf(message)
    if (at < 0) return undefined
    const header = part.slice(0, at)
    const end = part.slice(at + message.length).search(ends)
    const body = end < 0 ? part.slice(at + message.length) : part.slice(at + message.length, at + message.length + end)
    out.push({
      channel: /<\|channel\|>(\w+)/.exec(header)?.[1],
      recipient: /to=([^\s<]+)/.exec(header)?.[1],
      body
    })
  }
  return out
}

const parse = (text: string): Format.Parsed => {
  const messages = messagesOf(text)
  if (messages === undefined) return { content: text, calls: [] }
  const calls: Format.Call[] = []
  const content: string[] = []
  for (const m of messages) {
    if (m.recipient !== undefined && m.recipient.startsWith('functions.')) {
      const args = Format.parseJson(m.body.trim())
      if (typeof args !== 'object' || args === null || Array.isArray(args)) return { content: text, calls: [] }
      calls.push({ name: m.recipient.slice('functions.'.length), arguments: args as Record<string, unknown> })
    } else if (m.channel === 'final' || (m.channel === 'commentary' && m.recipient === undefined)) content.push(m.body)
  }
  return { content: content.join('\n'), calls }
}

export const harmony: Format.Format = {
  detect: (template) => template.includes(channel) && template.includes('<|call|>'),
  everyReply: true,
  parse,
  // content is not a prefix of a harmony reply (headers come first): nothing streams before the reply ends
  safePrefix: () => 0,
  openCalls: (text) =>
    text.split(start).flatMap((part): Partial.OpenCall[] => {
      const at = part.indexOf(message)
      const recipient = at < 0 ? null : /to=functions\.([^\s<]+)/.exec(part.slice(0, at))
      return recipient === null ? [] : [{ name: recipient[1]!, members: Partial.jsonMembers(part.slice(at + message.length)) }]
    }),
  write: (calls) => calls.map((c) => ` to=functions.${c.name}${channel}commentary json${message}${JSON.stringify(c.arguments)}<|call|>`).join(start)
}
