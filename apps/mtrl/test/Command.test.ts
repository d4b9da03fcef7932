import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Command.js'
import { commands } from '../src/commands/all.js'

const flags = { name: _.text, on: _.bool, grid: _.list, n: _.int(3), k: _.int(), t: _.float(0.5) }
const parse = _.parse(flags, true)

describe('Command flags', () => {
  it('parses each flag as declared, numbers with their defaults', () => {
    expect(parse(['x', '--name', 'a', '--on', '--grid', 'p', '--grid', 'q', '--k', '7', '--t=-1.5'])).toEqual(
      E.right({ values: { name: 'a', on: true, grid: ['p', 'q'], n: 3, k: 7, t: -1.5 }, positionals: ['x'] })
    )
    expect(E.map((p: _.Parsed<typeof flags>) => [p.values.n, p.values.k, p.values.t])(parse([]))).toEqual(E.right([3, undefined, 0.5]))
  })

  it('a bad number, an unknown flag or an unwanted argument is a usage error naming it', () => {
    expect(parse(['--n', 'abc'])).toEqual(E.left(_.usage('--n: expected a number, got "abc"')))
    expect(parse(['--k', '1.5'])).toEqual(E.left(_.usage('--k: expected a non-negative integer, got "1.5"')))
    expect(parse(['--k=-2'])).toEqual(E.left(_.usage('--k: expected a non-negative integer, got "-2"')))
    expect(parse(['--t', 'x'])).toEqual(E.left(_.usage('--t: expected a number, got "x"')))
    const unknown = parse(['--nmae', 'a'])
    expect(E.isLeft(unknown) && unknown.left).toMatchObject({ _tag: 'Usage', message: expect.stringMatching(/--nmae/) })
    const positional = _.parse(flags, false)(['x'])
    expect(E.isLeft(positional) && positional.left).toMatchObject({ _tag: 'Usage', message: expect.stringMatching(/'x'/) })
  })

  it('every command names each of its flags in its help', () => {
    const missing = commands.flatMap((c) =>
      Object.keys(c.flags)
        .filter((flag) => !c.help.includes(`--${flag}`))
        .map((flag) => `${c.name} --${flag}`)
    )
    expect(missing).toEqual([])
  })
})
