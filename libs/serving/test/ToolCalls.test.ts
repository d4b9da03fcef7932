import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/ToolCalls.js'

const name = fc.stringMatching(/^[a-z_]{1,8}$/)
const args = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.oneof(fc.string(), fc.integer(), fc.boolean()), { maxKeys: 3 })
const call = fc.record({ name, arguments: args })
const syntaxes: ReadonlyArray<_.Syntax> = ['hermes', 'llama3-json']

describe('ToolCalls', () => {
  for (const syntax of syntaxes)
    it(`${syntax}: the calls a model writes parse back to themselves`, () => {
      fc.assert(
        fc.property(fc.array(call, { minLength: 1, maxLength: syntax === 'hermes' ? 3 : 1 }), (calls) => {
          expect(_.parse(syntax)(_.write(syntax)(calls))).toEqual({ content: '', calls })
        })
      )
    })

  it('hermes: the content is the text before the first block; a block that is not a call stays content', () => {
    expect(_.parse('hermes')('Let me look.\n<tool_call>\n{"name": "look", "arguments": {}}\n</tool_call>')).toEqual({
      content: 'Let me look.',
      calls: [{ name: 'look', arguments: {} }]
    })
    const broken = 'I will <tool_call>{"name": go}</tool_call>'
    expect(_.parse('hermes')(broken)).toEqual({ content: broken, calls: [] })
    expect(_.parse('hermes')('<tool_call>{"name": "go", "arguments": {}}')).toEqual({ content: '<tool_call>{"name": "go", "arguments": {}}', calls: [] })
  })

  it('llama3-json: a reply that is one call object (after <|python_tag|>) is a call; prose is content', () => {
    expect(_.parse('llama3-json')('<|python_tag|>{"name": "go", "parameters": {"direction": "east"}}')).toEqual({
      content: '',
      calls: [{ name: 'go', arguments: { direction: 'east' } }]
    })
    expect(_.parse('llama3-json')('{"weather": 3}')).toEqual({ content: '{"weather": 3}', calls: [] })
    expect(_.parse('llama3-json')('go east')).toEqual({ content: 'go east', calls: [] })
  })

  it('hermes: no streamed prefix ever holds the start of a call block, and the whole plain text is eventually safe', () => {
    fc.assert(
      fc.property(fc.string(), fc.array(call, { maxLength: 2 }), fc.nat(200), (text, calls, cutAt) => {
        const full = calls.length === 0 ? text : `${text}\n${_.write('hermes')(calls)}`
        const partial = full.slice(0, Math.min(cutAt, full.length))
        const safe = _.safePrefix('hermes')(partial)
        expect(partial.slice(0, safe)).not.toContain('<tool_call>')
        if (calls.length > 0) expect(_.parse('hermes')(full).content.startsWith(partial.slice(0, safe))).toBe(true)
      })
    )
  })

  it("reads a template's syntax from its text", () => {
    expect(_.syntaxOfTemplate('{{ "<tool_call>" }}')).toBe('hermes')
    expect(_.syntaxOfTemplate('{% for c in message.tool_calls %}{"parameters": {{ c.arguments | tojson }}}{% endfor %}')).toBe('llama3-json')
    expect(_.syntaxOfTemplate('{{ messages[0].content }}')).toBeUndefined()
  })
})
