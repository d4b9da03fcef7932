import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Command.js'
import * as Game from '../src/Game.js'
import * as Scene from '../src/Scene.js'
import { reachable } from './helpers.js'

describe('Command', () => {
  it('parses every admissible command back to itself', () => {
    fc.assert(
      fc.property(reachable(), (state) => {
        for (const text of Game.admissible(state)) {
          const command = _.parse(state.game.scene)(text)
          expect(command, text).toBeDefined()
          expect(_.render(state.game.scene)(command!)).toBe(text)
        }
      }),
      { numRuns: 100 }
    )
  })

  it('tolerates case, blanks, a final period and the older "put O in/on R" form', () => {
    const { scene } = Scene.generate('train', ['pick_and_place_simple'])(1)
    const parse = _.parse(scene)
    const o = scene.objects[0]!.name
    const r = scene.receptacles[0]!.name
    expect(parse(`  Go to   ${r.toUpperCase()}. `)).toEqual({ _tag: 'GoTo', receptacle: 0 })
    expect(parse(`put ${o} in/on ${r}`)).toEqual({ _tag: 'Move', object: 0, receptacle: 0 })
    expect(parse(`put ${o} in ${r}`)).toEqual({ _tag: 'Move', object: 0, receptacle: 0 })
    expect(parse(`move ${o} to ${r}`)).toEqual({ _tag: 'Move', object: 0, receptacle: 0 })
    expect(parse('inventory')).toEqual({ _tag: 'Inventory' })
    expect(parse(`examine ${r}`)).toEqual({ _tag: 'ExamineReceptacle', receptacle: 0 })
    expect(parse(`examine ${o}`)).toEqual({ _tag: 'ExamineObject', object: 0 })
  })

  it('rejects text that names nothing in the scene', () => {
    const { scene } = Scene.generate('train', ['pick_and_place_simple'])(1)
    const parse = _.parse(scene)
    expect(parse('go to the moon')).toBeUndefined()
    expect(parse('take unicorn 1 from countertop 1')).toBeUndefined()
    expect(parse('dance')).toBeUndefined()
    expect(parse('')).toBeUndefined()
  })
})
