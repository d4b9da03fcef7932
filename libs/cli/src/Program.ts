/**
 * A program of sub-commands: its usage (one line per command), and `run`, which dispatches
 * `argv` to the command it names (a near miss suggested), prints a command's help on `--help`,
 * and maps what went wrong to its message and exit code.
 *
 * @since 0.1.0
 */
import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { exitCode, type CliError, type Command } from './Command.js'

/**
 * - `name`: what people type (`mtrl`); `about`: one line on what it is;
 * - `commands`: in the order the usage lists them; `footer`: the usage's last paragraph.
 *
 * @category models
 * @since 0.1.0
 */
export interface Program {
  readonly name: string
  readonly about: string
  readonly commands: ReadonlyArray<Command>
  readonly footer?: string
}

/** Where a program writes: its output and its errors. @category models @since 0.1.0 */
export interface Streams {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
}

const processStreams: Streams = { out: (text) => void process.stdout.write(text), err: (text) => void process.stderr.write(text) }

/** The usage text: about, the usage line, the commands with their summaries, the footer. @category destructors @since 0.1.0 */
export const usage = (program: Program): string => {
  const { name, about, commands, footer } = program
  const lines = commands.map((c) => `  ${c.name.padEnd(14)} ${c.summary}`).join('\n')
  const head = `${name}: ${about}\n\nUsage: ${name} <command> [flags]      (${name} <command> --help for details and examples)`
  return `${head}\n\nCommands:\n${lines}\n${footer === undefined ? '' : `\n${footer}\n`}`
}

/** Writes what went wrong: a usage error with the help hint, a stop on the output (it is no failure). */
const report = (program: Program, command: string, error: CliError, streams: Streams): void => {
  switch (error._tag) {
    case 'Usage':
      return streams.err(`${program.name} ${command}: ${error.message}\n(see: ${program.name} ${command} --help)\n`)
    case 'Stopped':
      return streams.out(`${error.message}\n`)
    case 'BackendUnavailable':
    case 'Failed':
      return streams.err(`${program.name} ${command}: ${error.message}\n`)
  }
}

/**
 * Runs the command `argv` names with the rest of `argv`: its exit code (0 for help, 2 for no
 * command or an unknown one, the error's code for a failure).
 *
 * @example
 * import { Program } from '@mtrl/cli'
 * declare const hello: import('@mtrl/cli').Command.Command
 * const code = await Program.run({ name: 'demo', about: 'a demo', commands: [hello] })(['hello', '--name', 'Ada'])
 *
 * @category running
 * @since 0.1.0
 */
export const run =
  (program: Program, streams: Streams = processStreams) =>
  async (argv: ReadonlyArray<string>): Promise<number> => {
    const [name, ...rest] = argv
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      streams.out(usage(program))
      return name === undefined ? 2 : 0
    }
    const command = program.commands.find((c) => c.name === name)
    if (command === undefined) {
      const near = Decode.nearest(
        name,
        program.commands.map((c) => c.name)
      )
      streams.err(`${program.name}: unknown command "${name}"${near === undefined ? '' : ` (did you mean "${near}"?)`}\n\n${usage(program)}`)
      return 2
    }
    if (rest.includes('--help') || rest.includes('-h')) {
      streams.out(`${command.help}\n`)
      return 0
    }
    const result = await command.run(rest)()
    if (E.isRight(result)) return result.right
    report(program, command.name, result.left, streams)
    return exitCode(result.left)
  }
