import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Command.js'
import { gameOf } from './fixtures.js'

describe('Command', () => {
  const game = gameOf('tw-simple-dense-detailed', 0)
  const parse = _.parse(game)
  const id = (name: string): number => game.byName.get(name)!

  it('parses the grammar', () => {
    expect(parse('go east')).toEqual({ _tag: 'Go', dir: 2 })
    expect(parse('take old key from chest drawer')).toEqual({ _tag: 'Take', item: id('old key'), from: id('chest drawer') })
    expect(parse('take shovel')).toEqual({ _tag: 'Take', item: id('shovel'), from: -1 })
    expect(parse('put remote on low table')).toEqual({ _tag: 'Put', item: id('remote'), holder: id('low table') })
    expect(parse('insert remote into bath')).toEqual({ _tag: 'Insert', item: id('remote'), holder: id('bath') })
    expect(parse('unlock wooden door with old key')).toEqual({ _tag: 'Unlock', target: id('wooden door'), key: id('old key') })
    expect(parse('lock wooden door with old key')).toEqual({ _tag: 'Lock', target: id('wooden door'), key: id('old key') })
    expect(parse('examine tv')).toEqual({ _tag: 'Examine', target: id('tv') })
    expect(parse('look')).toEqual({ _tag: 'Look' })
    expect(parse('inventory')).toEqual({ _tag: 'Inventory' })
    expect(parse('fly')).toEqual({ _tag: 'UnknownVerb' })
    expect(parse('take unicorn')).toEqual({ _tag: 'UnknownNoun' })
  })

  it('ignores case, spacing, a leading "the" and trailing periods', () => {
    const words = fc.constantFrom('open chest drawer', 'take old key from chest drawer', 'go east', 'put remote on low table', 'eat shovel')
    fc.assert(
      fc.property(words, fc.constantFrom('', ' ', '  '), fc.constantFrom('', '.', '!', ' . '), fc.boolean(), (command, pad, tail, upper) => {
        const noisy = `${pad}${command.split(' ').join(`${pad} `)}${tail}`
        expect(parse(upper ? noisy.toUpperCase() : noisy)).toEqual(parse(command))
      })
    )
    expect(parse('open the chest drawer')).toEqual(parse('open chest drawer'))
  })
})
