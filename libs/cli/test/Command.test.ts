import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as _ from '../src/Command.js'

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
    expect(E.isLeft(unknown) && unknown.left).toMatchObject({ _tag: 'Usage', message: expect.stringMatching(/--nmae.*\(did you mean --name\?\)/) })
    const positional = _.parse(flags, false)(['x'])
    expect(E.isLeft(positional) && positional.left).toMatchObject({ _tag: 'Usage', message: expect.stringMatching(/'x'/) })
  })

  it('make parses before running: a bad flag never reaches the command', async () => {
    let ran = 0
    const command = _.make({
      name: 'c',
      summary: 's',
      help: 'c [--n N]',
      flags: { n: _.int(1) },
      run:
        ({ values }) =>
        async () => ((ran += values.n), E.right(0))
    })
    expect(await command.run(['--n', '2'])()).toEqual(E.right(0))
    expect(await command.run(['--n', 'two'])()).toEqual(E.left(_.usage('--n: expected a number, got "two"')))
    expect(await command.run(['x'])()).toMatchObject(E.left({ _tag: 'Usage' }))
    expect(ran).toBe(2)
  })

  it('maps each error to its exit code: usage 2, backend 3, stopped 130, failed 1', () => {
    expect([_.usage('u'), _.backendUnavailable('b'), _.stopped('s'), _.failed('f')].map(_.exitCode)).toEqual([2, 3, 130, 1])
  })

  it('required names what is missing', () => {
    expect(_.required(undefined, '--out FILE is required')).toEqual(E.left(_.usage('--out FILE is required')))
    expect(_.required('x', 'unused')).toEqual(E.right('x'))
  })
})
