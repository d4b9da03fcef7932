import { HfTokenizer, Jinja } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as ChatFormat from '../src/ChatFormat.js'
import * as Request from '../src/Request.js'

// The chat-template table: 27 real templates of 23 families x 12 conversations, rendered by
// transformers (tools/fixtures/chat-template-table.py wrote reference.json) and by mtrl, from the
// conversation as an OpenAI client sends it (arguments as JSON strings, parsed by the request parser).

const fixtures = join(__dirname, '../../../fixtures')
const templates = join(fixtures, 'chat-templates')

interface Conversation {
  readonly name: string
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }>
  readonly messages_openai: ReadonlyArray<unknown>
  readonly tools: ReadonlyArray<unknown> | null
  readonly add_generation_prompt: boolean
  readonly kwargs: Readonly<Record<string, unknown>>
}
interface Template {
  readonly family: string
  readonly file: string
  readonly bos_token: string | null
  readonly eos_token: string | null
  readonly special_tokens_map: Readonly<Record<string, string>>
}
interface Case {
  readonly template: string
  readonly conversation: string
  readonly rendered: string | null
  readonly error?: string
}
const text = readFileSync(join(templates, 'table/reference.json'), 'utf8')
JSON.parse(text) // valid JSON first: Jinja.parseJson trusts its input
const reference = Jinja.parseJson(text) as {
  readonly transformers_version: string
  readonly now: string
  readonly templates: Readonly<Record<string, Template>>
  readonly conversations: ReadonlyArray<Conversation>
  readonly cases: ReadonlyArray<Case>
}
const tokenizer = HfTokenizer.fromJson(JSON.parse(readFileSync(join(fixtures, 'hf/tiny-qwen2/tokenizer.json'), 'utf8')))
const now = new Date(reference.now) // a local time without zone, as Python's datetime.now() gave it

const formats = new Map(
  Object.entries(reference.templates).map(([name, t]) => {
    const source = readFileSync(join(templates, t.file), 'utf8')
    return [name, ChatFormat.jinja(source, tokenizer, { bos_token: t.bos_token ?? undefined, eos_token: t.eos_token ?? undefined, now: () => now })] as const
  })
)

type Outcome =
  | { readonly _tag: 'Equal' }
  | { readonly _tag: 'SameError'; readonly python: string; readonly mtrl: string }
  | { readonly _tag: 'Refused'; readonly reason: string }
  | { readonly _tag: 'Differs'; readonly python: string; readonly mtrl: string }
  | { readonly _tag: 'FailsInMtrl'; readonly mtrl: string }
  | { readonly _tag: 'RendersWherePythonRaises'; readonly python: string }

/** mtrl's rendering of a conversation: the OpenAI body through the request parser, then the template. */
const renderMtrl = (c: Conversation, template: string): E.Either<string, string> => {
  const body = { model: 'm', messages: c.messages_openai, ...(c.tools === null ? {} : { tools: c.tools }) }
  const request = Request.ChatRequest.decode(body)
  if (E.isLeft(request)) throw new Error(`the fixture does not decode as a request: ${c.name}`)
  const conversation = Request.conversation(request.right)
  if (E.isLeft(conversation)) throw new Error(conversation.left.message)
  // the server passes a null content as '' (as vLLM does); transformers was given None: give the renderer None too
  const messages = conversation.right.messages.map((m, i) => (m.role === 'assistant' && c.messages[i]!.content === null ? { ...m, nullContent: true } : m))
  const { bos_token: _bos, eos_token: _eos, ...otherSpecials } = reference.templates[template]!.special_tokens_map
  const variables = { ...otherSpecials, ...c.kwargs }
  return formats.get(template)!.text({ ...conversation.right, messages }, { addGenerationPrompt: c.add_generation_prompt, variables })
}

const refusal = /has no tools: send the request without `tools`|cannot be rendered by mtrl as transformers renders it: .+/

const outcome = (k: Case): Outcome => {
  const c = reference.conversations.find((x) => x.name === k.conversation)!
  const mtrl = renderMtrl(c, k.template)
  if (E.isLeft(mtrl) && refusal.test(mtrl.left)) return { _tag: 'Refused', reason: mtrl.left }
  if (k.rendered === null)
    return E.isLeft(mtrl) ? { _tag: 'SameError', python: k.error!, mtrl: mtrl.left } : { _tag: 'RendersWherePythonRaises', python: k.error! }
  if (E.isLeft(mtrl)) return { _tag: 'FailsInMtrl', mtrl: mtrl.left }
  return mtrl.right === k.rendered ? { _tag: 'Equal' } : { _tag: 'Differs', python: k.rendered, mtrl: mtrl.right }
}

const outcomes = reference.cases.map((k) => [k, outcome(k)] as const)

describe(`the chat-template table (transformers ${reference.transformers_version})`, () => {
  it('holds 27 templates of 23 families x 12 conversations', () => {
    expect(Object.keys(reference.templates)).toHaveLength(27)
    expect(new Set(Object.values(reference.templates).map((t) => t.family)).size).toBe(23)
    expect(reference.conversations).toHaveLength(12)
    expect(reference.cases).toHaveLength(27 * 12)
  })

  it.each(outcomes.map(([k, o]) => [`${k.template} x ${k.conversation}`, o] as const))('%s: equal, the same error, or refused with a reason', (_label, o) => {
    if (o._tag === 'Differs') expect(o.mtrl).toBe(o.python)
    expect(o).toMatchObject({ _tag: expect.stringMatching(/^(Equal|SameError|Refused)$/) })
    if (o._tag === 'Refused') expect(o.reason).toMatch(refusal)
  })

  it('reports the table: every case equal, the same error on both sides, or refused with a reason', () => {
    const count = (tag: Outcome['_tag']): number => outcomes.filter(([, o]) => o._tag === tag).length
    const summary = { equal: count('Equal'), sameError: count('SameError'), refused: count('Refused') }
    console.info(`template table: ${JSON.stringify(summary)} of ${outcomes.length}`)
    if (process.env['TEMPLATE_TABLE'] === 'print')
      for (const [k, o] of outcomes)
        console.info([k.template, k.conversation, o._tag, o._tag === 'SameError' ? `${o.python} | ${o.mtrl}` : o._tag === 'Refused' ? o.reason : ''].join('\t'))
    expect(summary.equal + summary.sameError + summary.refused).toBe(outcomes.length)
  })
})
