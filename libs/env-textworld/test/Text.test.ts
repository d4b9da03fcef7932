import { describe, expect, it } from 'vitest'
import { Rng } from '@mtrl/core'
import * as _ from '../src/Text.js'

describe('Text', () => {
  it('writes banners, articles and lists as TextWorld does', () => {
    expect(_.banner('living room')).toBe('-= Living Room =-')
    expect(_.list(['apple', 'hat', 'old key'])).toBe('an apple, a hat and an old key')
    expect(_.list(['milk'])).toBe('some milk')
    expect(_.list([])).toBe('')
  })

  it('turns a walkthrough into step-by-step instructions, one sentence per command', () => {
    const text = _.stepByStep(Rng.make(1), ['go south', 'open chest', 'take hat from chest', 'put hat on shelf'])
    expect(text.split('. ')).toHaveLength(5)
    expect(text).toMatch(/south/)
    expect(text).toMatch(/hat.*shelf/)
    expect(text.endsWith('you win!')).toBe(true)
    expect(_.stepByStep(Rng.make(1), ['eat apple'])).toMatch(/^Your objective is to (eat|consume) the apple\./)
  })

  it('states the brief goal with its room', () => {
    expect(_.brief('put hat on shelf', 'attic')).toMatch(/^Your objective is to (put|place|rest) the hat on the shelf in the attic\.$/)
  })
})
