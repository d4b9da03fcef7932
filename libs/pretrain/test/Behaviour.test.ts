import { Rng } from '@mtrl/core'
import * as fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Behaviour.js'

const command = fc
  .constantFrom('go', 'take', 'open', 'examine', 'put')
  .chain((verb) => fc.constantFrom('key', 'arched door', 'compass from table', 'box').map((object) => `${verb} ${object}`))
const admissibleLists = fc.uniqueArray(command, { minLength: 1, maxLength: 12 })

describe('Behaviour.invalidCommand', () => {
  it('is never one of the admissible commands', () => {
    fc.assert(
      fc.property(admissibleLists, fc.integer(), (admissible, seed) => {
        const invalid = _.invalidCommand(admissible, Rng.make(seed))
        return invalid === undefined || !admissible.includes(invalid)
      })
    )
  })
  it('is made of the words of the admissible commands', () => {
    fc.assert(
      fc.property(admissibleLists, fc.integer(), (admissible, seed) => {
        const words = new Set(admissible.flatMap((a) => a.split(' ')))
        const invalid = _.invalidCommand(admissible, Rng.make(seed))
        return invalid === undefined || invalid.split(' ').every((w) => words.has(w))
      })
    )
  })
  it('recombines a verb and an object: open key from open door and take key', () => {
    const seen = new Set(Array.from({ length: 200 }, (_x, i) => _.invalidCommand(['open door', 'take key'], Rng.make(i))))
    expect([...seen].sort()).toEqual(['open', 'open key', 'take', 'take door'])
  })
  it('gives up when nothing is left to recombine', () => {
    expect(_.invalidCommand([], Rng.make(0))).toBeUndefined()
    expect(_.invalidCommand(['look'], Rng.make(0))).toBeUndefined()
  })
})

describe('Behaviour.choose', () => {
  it('plays only admissible commands with invalidShare 0, each about as often', () => {
    const admissible = ['go north', 'go south', 'take key', 'open box']
    const rng = Rng.make(1)
    const counts = new Map<string, number>()
    for (let i = 0; i < 4000; i++) {
      const move = _.choose({ invalidShare: 0 })(admissible, rng)!
      expect(move.kind).toBe('admissible')
      counts.set(move.action, (counts.get(move.action) ?? 0) + 1)
    }
    expect([...counts.keys()].sort()).toEqual([...admissible].sort())
    for (const n of counts.values()) expect(Math.abs(n - 1000)).toBeLessThan(120)
  })
  it('plays an invalid command about invalidShare of the time, and those are not admissible', () => {
    const admissible = ['go north', 'go south', 'take key', 'open box']
    const rng = Rng.make(2)
    const moves = Array.from({ length: 4000 }, () => _.choose({ invalidShare: 0.25 })(admissible, rng)!)
    const invalid = moves.filter((m) => m.kind === 'free-form')
    expect(Math.abs(invalid.length / moves.length - 0.25)).toBeLessThan(0.03)
    expect(invalid.filter((m) => admissible.includes(m.action))).toEqual([])
    expect(moves.filter((m) => m.kind === 'admissible' && !admissible.includes(m.action))).toEqual([])
  })
  it('has no move without admissible commands', () => {
    expect(_.choose(_.defaultOptions)([], Rng.make(0))).toBeUndefined()
  })
})
