import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/ToolCalls.js'

const name = fc.stringMatching(/^[a-z_]{1,8}$/)
const text = fc.string().filter((s) => !s.includes('<') && !s.includes('['))
const args = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(fc.string(), fc.integer(), fc.boolean()), { maxKeys: 3 })
const call = fc.record({ name, arguments: args })
/** Tools whose schemas type each call's arguments as the values are (the XML formats read values by them). */
const toolsOf = (calls: ReadonlyArray<_.Call>) =>
  calls.map((c) => ({
    function: {
      name: c.name,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(Object.entries(c.arguments).map(([k, v]) => [k, { type: typeof v === 'number' ? 'integer' : typeof v }]))
      }
    }
  }))
const names = Object.keys(_.Name.keys) as ReadonlyArray<_.Syntax>
const templates = join(__dirname, '../../../fixtures/chat-templates')

/**
 * The lines of each family's chat template that write an assistant's tool calls (the real
 * templates' own text, trimmed to those lines), which is what detection reads.
 */
const familyTemplates: ReadonlyArray<readonly [string, string, _.Syntax]> = [
  ['Qwen2.5 (file)', readFileSync(join(templates, 'qwen2.5.jinja'), 'utf8'), 'hermes'],
  ['Llama 3.1 (file)', readFileSync(join(templates, 'llama3.1.jinja'), 'utf8'), 'llama3-json'],
  ['gpt-oss (file)', readFileSync(join(templates, 'table/gpt-oss.jinja'), 'utf8'), 'harmony'],
  [
    'Qwen3-Coder / Qwen3.5 / Nemotron 3',
    `{%- for tool_call in message.tool_calls %}{{- '\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}{%- for args_name, args_value in tool_call.arguments|items %}{{- '<parameter=' + args_name + '>\\n' }}{{- args_value }}{{- '\\n</parameter>\\n' }}{%- endfor %}{{- '</function>\\n</tool_call>' }}{%- endfor %}`,
    'qwen-xml'
  ],
  [
    'GLM-4.5',
    `{% for tc in m.tool_calls %}{{ '\\n<tool_call>' + tc.name }}{% for k, v in tc.arguments.items() %}<arg_key>{{ k }}</arg_key>\\n<arg_value>{{ v | tojson if v is not string else v }}</arg_value>\\n{% endfor %}</tool_call>{% endfor %}`,
    'glm-xml'
  ],
  [
    'Mistral (v3 tokenizer)',
    `{%- elif message.tool_calls is defined %}{{- "[TOOL_CALLS] [" }}{%- for tool_call in message.tool_calls %}{{ tool_call.function | tojson }}{%- endfor %}`,
    'mistral'
  ],
  [
    'Magistral (v11 tokenizer)',
    `{%- for tool in message.tool_calls %}{{- '[TOOL_CALLS]' + tool.function.name + '[ARGS]' + tool.function.arguments | tojson }}{%- endfor %}`,
    'mistral'
  ],
  [
    'Hermes 3',
    `{%- for tool_call in message.tool_calls %}{{- '<tool_call>\\n' }}{{- '{"name": "' + tool_call.name + '", "arguments": ' + tool_call.arguments | tojson + '}' }}{{- '\\n</tool_call>' }}{%- endfor %}`,
    'hermes'
  ]
]

describe('ToolCalls: the registry', () => {
  for (const syntax of names)
    it(`${syntax}: the calls a model writes parse back to themselves, after any text`, () => {
      fc.assert(
        fc.property(text, fc.array(call, { minLength: 1, maxLength: syntax === 'llama3-json' ? 1 : 3 }), (before, calls) => {
          const written = _.write(syntax)(calls)
          // a name used twice with other argument types cannot be typed by one schema
          const tools = toolsOf(calls).filter((t, i, all) => all.findIndex((u) => u.function.name === t.function.name) === i)
          const same = tools.length === calls.length
          if (same) expect(_.parse(syntax, tools)(written)).toEqual({ content: '', calls })
          // llama3-json and harmony replies hold no text before their calls
          if (same && syntax !== 'llama3-json' && syntax !== 'harmony')
            expect(_.parse(syntax, tools)(`${before}\n${written}`)).toEqual({ content: `${before}\n`.trimEnd(), calls })
        })
      )
    })

  for (const syntax of names)
    it(`${syntax}: no streamed prefix holds the start of a call, and what streams is the parsed content's start`, () => {
      fc.assert(
        fc.property(text, fc.array(call, { minLength: 1, maxLength: 2 }), fc.nat(300), (before, calls, cutAt) => {
          const full = syntax === 'llama3-json' ? _.write(syntax)(calls) : `${before}\n${_.write(syntax)(calls)}`
          const partial = full.slice(0, Math.min(cutAt, full.length))
          const shown = partial.slice(0, _.safePrefix(syntax)(partial))
          expect(_.parse(syntax)(full).content.startsWith(shown)).toBe(true)
        })
      )
    })

  for (const syntax of names)
    it(`${syntax}: while a reply is written, its calls open by name and their arguments grow one by one, each a prefix of the parsed ones`, () => {
      fc.assert(
        fc.property(fc.array(call, { minLength: 1, maxLength: 2 }), fc.nat(400), (calls, cutAt) => {
          const tools = toolsOf(calls).filter((t, i, all) => all.findIndex((u) => u.function.name === t.function.name) === i)
          fc.pre(tools.length === calls.length)
          const full = _.write(syntax)(calls)
          const final = _.parse(syntax, tools)(full).calls
          const open = _.openCalls(syntax, tools)(full.slice(0, Math.min(cutAt, full.length)))
          expect(open.length).toBeLessThanOrEqual(final.length)
          open.forEach((o, i) => {
            expect(o.name).toBe(final[i]!.name)
            expect(o.members).toEqual(Object.entries(final[i]!.arguments).slice(0, o.members.length))
          })
          // the whole reply: the first call is open with all its arguments
          expect(_.openCalls(syntax, tools)(full)[0]).toEqual({ name: final[0]!.name, members: Object.entries(final[0]!.arguments) })
        })
      )
    })

  it.each(familyTemplates)('%s: detected as %s', (_family, template, syntax) => {
    expect(_.detect(template)).toEqual({ _tag: 'Found', name: syntax })
  })

  it('a template without tools has none; one whose tool calls are in an unknown format is refused with the reason', () => {
    expect(_.detect('{{ messages[0].content }}')).toEqual({ _tag: 'None' })
    // Gemma 4 and Command-A write calls in formats of their own
    for (const template of [
      `{%- for tool_call in message['tool_calls'] %}{{- '<|tool_call>call:' + tool_call['function']['name'] + '{' }}{%- endfor %}`,
      `<|START_ACTION|>[{% for tc in message.tool_calls %}{"tool_call_id": "{{ loop.index0 }}", "tool_name": "{{ tc.name }}", "parameters": {{ tc.arguments|tojson }}}{% endfor %}]<|END_ACTION|>`
    ]) {
      const found = _.detect(template)
      expect(found._tag).toBe('Unknown')
      expect(found._tag === 'Unknown' && found.reason).toMatch(/does not parse.*hermes/)
    }
  })
})

describe('ToolCalls: each format', () => {
  it('hermes: content before the first block; a block that is not a call leaves everything content; an unclosed last block counts when whole', () => {
    expect(_.parse('hermes')('Let me look.\n<tool_call>\n{"name": "look", "arguments": {}}\n</tool_call>')).toEqual({
      content: 'Let me look.',
      calls: [{ name: 'look', arguments: {} }]
    })
    const broken = 'I will <tool_call>{"name": go}</tool_call>'
    expect(_.parse('hermes')(broken)).toEqual({ content: broken, calls: [] })
    expect(_.parse('hermes')('<tool_call>{"name": "go", "arguments": {}}')).toEqual({ content: '', calls: [{ name: 'go', arguments: {} }] })
    expect(_.parse('hermes')('<tool_call>{"name": "go", "argu')).toEqual({ content: '<tool_call>{"name": "go", "argu', calls: [] })
  })

  it('harmony: calls are messages to functions.f (recipient before or after the channel), final and commentary are content, analysis is left out', () => {
    // what gpt-oss writes after the prompt's <|start|>assistant (the stop tokens <|call|> / <|return|> cut off or not)
    const analysis = '<|channel|>analysis<|message|>The user wants to go north.<|end|><|start|>assistant'
    expect(_.parse('harmony')(`${analysis}<|channel|>commentary to=functions.go <|constrain|>json<|message|>{"direction":"north"}`)).toEqual({
      content: '',
      calls: [{ name: 'go', arguments: { direction: 'north' } }]
    })
    expect(_.parse('harmony')(' to=functions.go<|channel|>commentary json<|message|>{"direction": "north"}<|call|>')).toEqual({
      content: '',
      calls: [{ name: 'go', arguments: { direction: 'north' } }]
    })
    expect(_.parse('harmony')(`${analysis}<|channel|>final<|message|>The door is to the north.<|return|>`)).toEqual({
      content: 'The door is to the north.',
      calls: []
    })
    expect(_.parse('harmony')('<|channel|>commentary<|message|>Checking the map.<|end|>')).toEqual({ content: 'Checking the map.', calls: [] })
    // no harmony header, or a call whose arguments are not a JSON object: the reply is content as it stands
    expect(_.parse('harmony')('Just text.')).toEqual({ content: 'Just text.', calls: [] })
    const bad = ' to=functions.go<|channel|>commentary json<|message|>{"direction": nor'
    expect(_.parse('harmony')(bad)).toEqual({ content: bad, calls: [] })
  })

  it('llama3-json: one call object (after <|python_tag|>), or several separated by ; ; prose and other JSON are content', () => {
    expect(_.parse('llama3-json')('<|python_tag|>{"name": "go", "parameters": {"direction": "east"}}')).toEqual({
      content: '',
      calls: [{ name: 'go', arguments: { direction: 'east' } }]
    })
    expect(_.parse('llama3-json')('{"name": "a", "parameters": {}}; {"name": "b", "parameters": {"x": 1}}').calls).toEqual([
      { name: 'a', arguments: {} },
      { name: 'b', arguments: { x: 1 } }
    ])
    expect(_.parse('llama3-json')('{"weather": 3}')).toEqual({ content: '{"weather": 3}', calls: [] })
    expect(_.parse('llama3-json')('go east')).toEqual({ content: 'go east', calls: [] })
  })

  it('mistral: the v3 array and the v11 name[ARGS]{...} forms, with [CALL_ID]', () => {
    expect(_.parse('mistral')('Sure.[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]')).toEqual({
      content: 'Sure.',
      calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }]
    })
    expect(_.parse('mistral')('[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[CALL_ID]a1b2c3d4e[ARGS]{}').calls).toEqual([
      { name: 'get_weather', arguments: { city: 'Paris' } },
      { name: 'get_time', arguments: {} }
    ])
    expect(_.parse('mistral')('[TOOL_CALLS] not a call').calls).toEqual([])
  })

  const weather = [
    {
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' }, metric: { type: 'boolean' }, at: { type: 'object' } } }
      }
    }
  ]

  it('qwen-xml: parameters typed by the schema (a string that looks like a number stays a string)', () => {
    const reply =
      'Let me check.\n<tool_call>\n<function=get_weather>\n<parameter=city>\n1984\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=metric>\ntrue\n</parameter>\n<parameter=at>\n{"lat": 1.5}\n</parameter>\n</function>\n</tool_call>'
    expect(_.parse('qwen-xml', weather)(reply)).toEqual({
      content: 'Let me check.',
      calls: [{ name: 'get_weather', arguments: { city: '1984', days: 3, metric: true, at: { lat: 1.5 } } }]
    })
    expect(_.parse('qwen-xml')(reply).calls[0]!.arguments['city']).toBe(1984) // no schema: JSON when it is JSON
    expect(_.parse('qwen-xml')('<tool_call>\n<function=f>\nstray text\n</function>\n</tool_call>').calls).toEqual([])
  })

  it('glm-xml: key/value pairs typed by the schema, multi-line values kept', () => {
    const reply =
      '<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>New\nYork</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n</tool_call>'
    expect(_.parse('glm-xml', weather)(reply)).toEqual({ content: '', calls: [{ name: 'get_weather', arguments: { city: 'New\nYork', days: 2 } }] })
    expect(_.parse('glm-xml')('<tool_call>bad name!\n</tool_call>').calls).toEqual([])
  })
})
