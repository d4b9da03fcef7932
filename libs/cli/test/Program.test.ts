import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import * as Command from '../src/Command.js'
import * as _ from '../src/Program.js'

const greet = Command.make({
  name: 'greet',
  summary: 'say hello',
  help: 'demo greet [--name N] [--fail M] [--stop M]',
  flags: { name: Command.text, fail: Command.text, stop: Command.text },
  run:
    ({ values }) =>
    async () =>
      values.fail !== undefined
        ? E.left(Command.failed(values.fail))
        : values.stop !== undefined
          ? E.left(Command.stopped(values.stop))
          : E.right(values.name === undefined ? 0 : 7)
})
const program: _.Program = { name: 'demo', about: 'a demo program', commands: [greet], footer: 'Footer line.' }

const run = async (argv: ReadonlyArray<string>) => {
  const out: string[] = []
  const err: string[] = []
  const code = await _.run(program, { out: (t) => void out.push(t), err: (t) => void err.push(t) })(argv)
  return { code, out: out.join(''), err: err.join('') }
}

const usage = `demo: a demo program

Usage: demo <command> [flags]      (demo <command> --help for details and examples)

Commands:
  greet          say hello

Footer line.
`

describe('Program.run', () => {
  it('prints the usage: on --help (0), without a command (2)', async () => {
    expect(await run(['--help'])).toEqual({ code: 0, out: usage, err: '' })
    expect(await run([])).toEqual({ code: 2, out: usage, err: '' })
    expect(_.usage({ ...program, footer: undefined })).toBe(usage.replace('\nFooter line.\n', ''))
  })

  it('names an unknown command with the nearest one, and exits 2', async () => {
    expect(await run(['gret'])).toEqual({ code: 2, out: '', err: `demo: unknown command "gret" (did you mean "greet"?)\n\n${usage}` })
  })

  it("prints a command's help, and runs it to its exit code", async () => {
    expect(await run(['greet', '--name', 'x', '--help'])).toEqual({ code: 0, out: 'demo greet [--name N] [--fail M] [--stop M]\n', err: '' })
    expect(await run(['greet', '--name', 'x'])).toEqual({ code: 7, out: '', err: '' })
  })

  it('reports errors: usage with the help hint (2), a failure (1), a stop on the output (130)', async () => {
    expect(await run(['greet', '--nmae', 'x'])).toMatchObject({ code: 2, err: expect.stringMatching(/^demo greet: .*--nmae.*\n\(see: demo greet --help\)\n$/) })
    expect(await run(['greet', '--fail', 'broke'])).toEqual({ code: 1, out: '', err: 'demo greet: broke\n' })
    expect(await run(['greet', '--stop', 'stopped at 3'])).toEqual({ code: 130, out: 'stopped at 3\n', err: '' })
  })
})
