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
})
