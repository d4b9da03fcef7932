import { ChatTemplate, HfTokenizer, WordTokenizer } from '@mtrl/policy'
import * as E from 'fp-ts/lib/Either.js'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/ChatFormat.js'
import * as BoundedJson from '../src/internal/boundedJson.js'
import * as Request from '../src/Request.js'

const fixtures = join(__dirname, '../../../fixtures')
const templates = join(fixtures, 'chat-templates')

interface Case {
  readonly template: 'qwen2.5' | 'llama3.1'
  readonly name: string
  readonly messages: ReadonlyArray<Record<string, unknown>>
  readonly tools: ReadonlyArray<Request.ChatRequest['tools']> | null
  readonly add_generation_prompt: boolean
  readonly kwargs: Record<string, unknown>
  readonly rendered: string | null
  readonly error?: string
}
const reference = JSON.parse(readFileSync(join(templates, 'reference.json'), 'utf8')) as {
  readonly transformers_version: string
  readonly cases: ReadonlyArray<Case>
}
const tinyQwen = HfTokenizer.fromJson(JSON.parse(readFileSync(join(fixtures, 'hf/tiny-qwen2/tokenizer.json'), 'utf8')))

/** A fixture conversation as an OpenAI client sends it: tool-call arguments as JSON strings. */
const asOpenAi = (messages: ReadonlyArray<Record<string, unknown>>): unknown[] =>
  messages.map((m) =>
    m['tool_calls'] === undefined
      ? m
      : {
          ...m,
          tool_calls: (m['tool_calls'] as ReadonlyArray<{ id: string; type: string; function: { name: string; arguments: unknown } }>).map((c) => ({
            ...c,
            function: { ...c.function, arguments: JSON.stringify(c.function.arguments) }
          }))
        }
  )

const formatOf = (name: string): _.ChatFormat => {
  const config = JSON.parse(readFileSync(join(templates, `${name}.json`), 'utf8')) as { chat_template: string; bos_token: string | null; eos_token: string }
  return _.jinja(config.chat_template, tinyQwen, { bos_token: config.bos_token ?? undefined, eos_token: config.eos_token })
}

describe('ChatFormat.jinja', () => {
  // the pitfall case passes arguments to Python as strings; a server parses them into objects first
  const cases = reference.cases.filter((c) => c.name !== 'pitfall_string_arguments')
  it.each(cases.map((c) => [`${c.template} ${c.name}`, c] as const))(
    `renders %s from an OpenAI request exactly as transformers ${reference.transformers_version} apply_chat_template`,
    (_label, c) => {
      // the template's keyword arguments travel as the request's chat_template_kwargs (vLLM's field)
      const kwargs = c.kwargs !== null && Object.keys(c.kwargs).length > 0 ? { chat_template_kwargs: c.kwargs } : {}
      const request = Request.ChatRequest.decode({ model: 'm', messages: asOpenAi(c.messages), ...(c.tools === null ? {} : { tools: c.tools }), ...kwargs })
      if (E.isLeft(request)) throw new Error(`the fixture does not decode as a request: ${c.name}`)
      expect(Request.unsupported(request.right)).toBeUndefined()
      const conversation = Request.conversation(request.right)
      if (E.isLeft(conversation)) throw new Error(conversation.left.message)
      const text = formatOf(c.template).text(conversation.right, { addGenerationPrompt: c.add_generation_prompt })
      if (c.rendered === null) expect(E.isLeft(text) && text.left).toMatch(/only supports single tool-calls/)
      else expect(text).toEqual(E.right(c.rendered))
    }
  )

  it("keeps a request body's whole-number floats (2.0) in tool schemas and arguments, as Python's json.loads does", () => {
    // what a client sends, as text: the server parses it with BoundedJson (chatRoute.ts)
    const body =
      '{"model": "m", "tools": [{"type": "function", "function": {"name": "measure", "parameters": {"type": "object", "properties": {"d": {"type": "number", "minimum": 0.0}}}}}],' +
      ' "messages": [{"role": "user", "content": "How far?"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "measure", "arguments": "{\\"d\\": 2.0}"}}]}]}'
    const parsed = BoundedJson.parse(body)
    if (E.isLeft(parsed)) throw new Error(parsed.left)
    const request = Request.ChatRequest.decode(parsed.right)
    if (E.isLeft(request)) throw new Error('the body does not decode')
    const conversation = Request.conversation(request.right)
    if (E.isLeft(conversation)) throw new Error(conversation.left.message)
    const text = formatOf('qwen2.5').text(conversation.right, { addGenerationPrompt: false })
    // transformers 5.18.0 renders these two lines of the same conversation so (Qwen2.5's tojson)
    expect(E.isRight(text) && text.right).toContain(
      '{"type": "function", "function": {"name": "measure", "parameters": {"type": "object", "properties": {"d": {"type": "number", "minimum": 0.0}}}}}'
    )
    expect(E.isRight(text) && text.right).toContain('<tool_call>\n{"name": "measure", "arguments": {"d": 2.0}}\n</tool_call>')
  })

  it('reads the tool-call syntax of each template and the end-of-turn tokens of the tokenizer', () => {
    expect(formatOf('qwen2.5').toolSyntax).toEqual({ _tag: 'Found', name: 'hermes' })
    expect(formatOf('llama3.1').toolSyntax).toEqual({ _tag: 'Found', name: 'llama3-json' })
    expect(formatOf('qwen2.5').stopTokens).toContain(tinyQwen.special.eos)
    // Phi-3.5 ends replies with <|end|> (its eos is <|endoftext|>): a served reply stops there, as a rollout's does
    const phi = join(fixtures, 'hf-templates/tpl-phi3.5')
    const config = JSON.parse(readFileSync(join(phi, 'tokenizer_config.json'), 'utf8')) as Record<string, string>
    const tokenizer = HfTokenizer.fromJson(JSON.parse(readFileSync(join(phi, 'tokenizer.json'), 'utf8')), config)
    const [end] = tokenizer.encode('<|end|>')
    expect(_.forTokenizer(tokenizer).stopTokens).toContain(end)
    expect(ChatTemplate.make(tokenizer).stopTokens[0]).toBe(end)
  })

  it('refuses tools for a template that renders none, and names the template error', () => {
    const plain = _.jinja('{% for m in messages %}{{ m.content }}{% endfor %}', tinyQwen)
    const tools: _.Tool[] = [{ type: 'function', function: { name: 'go' } }]
    expect(plain.render({ messages: [{ role: 'user', content: 'hi' }], tools })).toEqual(E.left(expect.stringMatching(/no tools/)))
    const raising = _.jinja("{{ raise_exception('no system role') }}", tinyQwen)
    expect(raising.render({ messages: [{ role: 'user', content: 'hi' }], tools: [] })).toEqual(E.left(expect.stringMatching(/no system role/)))
  })
})

describe('ChatFormat.turns', () => {
  const tokenizer = WordTokenizer.build({ maxVocab: 400, minCount: 1 })(['You are in a kitchen. go north take key', 'You see a key.'])
  const template = ChatTemplate.make(tokenizer)
  const format = _.turns(tokenizer)

  it('lays a conversation out as a rollout does: prompt(system, first user), reply + stop token, observation', () => {
    const ids = format.render({
      messages: [
        { role: 'system', content: 'You are an agent.' },
        { role: 'user', content: 'You are in a kitchen.' },
        { role: 'assistant', content: 'go north', toolCalls: [] },
        { role: 'user', content: 'You see a key.' }
      ],
      tools: []
    })
    const want = [
      ...template.prompt('You are an agent.', 'You are in a kitchen.'),
      ...tokenizer.encode('go north'),
      template.stopTokens[0]!,
      ...template.observation('You see a key.')
    ]
    expect(E.map((x: Int32Array) => Array.from(x))(ids)).toEqual(E.right(want))
  })

  it('joins consecutive user and tool messages into one observation and writes tool calls as hermes blocks', () => {
    const ids = format.render({
      messages: [
        { role: 'user', content: 'start' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'go', arguments: { direction: 'north' } }] },
        { role: 'tool', content: 'moved', toolCallId: 'c1' },
        { role: 'user', content: 'now?' }
      ],
      tools: [{ type: 'function', function: { name: 'go', parameters: { type: 'object', properties: { direction: { type: 'string' } } } } }]
    })
    const system = 'Tools: go(direction). Call one as <tool_call>{"name": ..., "arguments": {...}}</tool_call>.'
    const reply = '<tool_call>\n{"name":"go","arguments":{"direction":"north"}}\n</tool_call>'
    const want = [...template.prompt(system, 'start'), ...tokenizer.encode(reply), template.stopTokens[0]!, ...template.observation('moved\nnow?')]
    expect(E.map((x: Int32Array) => Array.from(x))(ids)).toEqual(E.right(want))
  })

  it('renders an assistant message the server wrote with its sampled ids, not its re-encoding', () => {
    // 'go north' written byte by byte re-encodes to word tokens: another token sequence, same text
    const bytes = Int32Array.from([...new TextEncoder().encode('go north')].map((b) => 7 + b))
    expect(tokenizer.decode(bytes)).toBe('go north')
    expect(Array.from(tokenizer.encode('go north'))).not.toEqual(Array.from(bytes))
    const sampled = Int32Array.from([...bytes, template.stopTokens[0]!])
    const conversation: _.Conversation = {
      messages: [
        { role: 'user', content: 'You are in a kitchen.' },
        { role: 'assistant', content: 'go north', toolCalls: [] },
        { role: 'user', content: 'You see a key.' }
      ],
      tools: []
    }
    const before = template.prompt('', 'You are in a kitchen.')
    // the reply is known after the prompt it was sampled after, not after another one
    const known = (prompt: Int32Array, reply: { readonly content: string }) =>
      reply.content === 'go north' && Array.from(prompt).join() === Array.from(before).join() ? sampled : undefined
    const ids = format.render(conversation, known)
    const want = [...template.prompt('', 'You are in a kitchen.'), ...sampled, ...template.observation('You see a key.')]
    expect(E.map((x: Int32Array) => Array.from(x))(ids)).toEqual(E.right(want))
  })

  it('refuses conversations a rollout cannot have: ending with the assistant, starting with it, a late system message', () => {
    const user = { role: 'user', content: 'a' } as const
    const assistant = { role: 'assistant', content: 'b', toolCalls: [] } as const
    expect(E.isLeft(format.render({ messages: [user, assistant], tools: [] }))).toBe(true)
    expect(E.isLeft(format.render({ messages: [assistant, user], tools: [] }))).toBe(true)
    expect(E.isLeft(format.render({ messages: [user, { role: 'system', content: 's' }, user], tools: [] }))).toBe(true)
  })
})

describe('ChatFormat.forTokenizer', () => {
  it("takes a Hugging Face tokenizer's own chat_template, else mtrl's turns", () => {
    const source = readFileSync(join(templates, 'qwen2.5.jinja'), 'utf8')
    const withTemplate = HfTokenizer.fromJson(JSON.parse(readFileSync(join(fixtures, 'hf/tiny-qwen2/tokenizer.json'), 'utf8')), {
      chat_template: source,
      eos_token: '<|im_end|>'
    })
    expect(_.forTokenizer(withTemplate).kind).toBe('jinja')
    expect(_.forTokenizer(tinyQwen).kind).toBe('turns')
    expect(_.forTokenizer(tinyQwen, source).kind).toBe('jinja')
    expect(
      _.templateOfConfig({
        chat_template: [
          { name: 'tool_use', template: 'x' },
          { name: 'default', template: 'y' }
        ]
      })
    ).toBe('y')
  })
})
