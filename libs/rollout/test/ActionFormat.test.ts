import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/ActionFormat.js'

describe('ActionFormat', () => {
  it('plain: a single line is the action', () => {
    expect(_.parse('plain')('  go north \n')).toEqual({ parsed: true, action: 'go north', reasoning: '' })
  })
  it('plain: an empty reply is a format error', () => {
    expect(_.parse('plain')('  ').parsed).toBe(false)
  })
  it('plain: text after the action (a fake observation) is a format error, and only the first line is kept', () => {
    const out = _.parse('plain')('open door\nObservation: you won!\nreward: 1 done: True')
    expect(out).toEqual({ parsed: false, action: 'open door', reasoning: '' })
  })
  it('tagged: reasoning then the action', () => {
    expect(_.parse('tagged')('the key opens it\n<action>unlock door with key</action>')).toEqual({
      parsed: true,
      action: 'unlock door with key',
      reasoning: 'the key opens it'
    })
  })
  it('tagged: a missing tag, an empty action, or text after the tag is a format error', () => {
    expect(_.parse('tagged')('go north').parsed).toBe(false)
    expect(_.parse('tagged')('<action> </action>').parsed).toBe(false)
    expect(_.parse('tagged')('<action>go</action> reward: 1.0 done: True').parsed).toBe(false)
    expect(_.parse('tagged')('<action>go</action><action>take</action>').parsed).toBe(false)
  })
  it('tagged: any one-line action wrapped after any reasoning round-trips', () => {
    const line = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim().length > 0 && !/[\n<>]/.test(s))
    const reasoning = fc.string({ maxLength: 40 }).filter((s) => !s.includes('<'))
    fc.assert(
      fc.property(reasoning, line, (r, a) => {
        const out = _.parse('tagged')(`${r}<action>${a}</action>`)
        expect(out).toEqual({ parsed: true, action: a.trim(), reasoning: r.trim() })
      })
    )
  })
  it('tool: one call of act with a one-line command is the action', () => {
    expect(_.parse('tool')('<tool_call>\n{"name":"act","arguments":{"command":"go to desk 1"}}\n</tool_call>')).toEqual({
      parsed: true,
      action: 'go to desk 1',
      reasoning: ''
    })
    expect(_.parse('tool')('<tool_call>{"name": "act", "arguments": {"command": " open fridge 1 "}}</tool_call>')).toEqual({
      parsed: true,
      action: 'open fridge 1',
      reasoning: ''
    })
  })
  it('tool: no call, bad JSON, another tool, extra arguments, a second call or text around it is a format error', () => {
    const bad = [
      'go to desk 1',
      '<tool_call>{"name":"act","arguments":{"command":"go"}</tool_call>',
      '<tool_call>{"name":"look","arguments":{"command":"go"}}</tool_call>',
      '<tool_call>{"name":"act","arguments":{"command":"go","why":"x"}}</tool_call>',
      '<tool_call>{"name":"act","arguments":{"command":7}}</tool_call>',
      '<tool_call>{"name":"act","arguments":{"command":"go\\nreward: 1"}}</tool_call>',
      '<tool_call>{"name":"act","arguments":{"command":"go"}}</tool_call>\n<tool_call>{"name":"act","arguments":{"command":"take"}}</tool_call>',
      'I will go.\n<tool_call>{"name":"act","arguments":{"command":"go"}}</tool_call>',
      '<tool_call>{"name":"act","arguments":{"command":"go"}}</tool_call> done: True'
    ]
    for (const reply of bad) expect(_.parse('tool')(reply).parsed, reply).toBe(false)
  })
  it('tool: any one-line command written by toolCall round-trips (quotes, backslashes, unicode)', () => {
    const line = fc.string({ minLength: 1, maxLength: 30 }).filter((s) => s.trim().length > 0 && !/[\n\r\u2028\u2029]/.test(s) && s.trim() === s)
    fc.assert(
      fc.property(line, (a) => {
        expect(_.parse('tool')(_.toolCall(a))).toEqual({ parsed: true, action: a, reasoning: '' })
      })
    )
  })
})
