/**
 * The mtrl command line: one verb per pipeline, each a thin composition of the @mtrl libraries.
 */
import { Decode } from '@mtrl/core'
import * as E from 'fp-ts/lib/Either.js'
import { exitCode, type CliError } from './Command.js'
import { commands } from './commands/all.js'

const usage = (): string =>
  `mtrl: multi-turn agentic reinforcement learning for language-model agents

Usage: mtrl <command> [flags]      (mtrl <command> --help for details and examples)

Commands:
${commands.map((c) => `  ${c.name.padEnd(14)} ${c.summary}`).join('\n')}

Backend: --backend auto|webgpu|tensorflow|wasm|cpu or MTRL_BACKEND (auto: webgpu on a hardware GPU, then tensorflow, then wasm, then cpu).
`

const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage())
    return name === undefined ? 2 : 0
  }
  const command = commands.find((c) => c.name === name)
  if (command === undefined) {
    const near = Decode.nearest(
      name,
      commands.map((c) => c.name)
    )
    process.stderr.write(`mtrl: unknown command "${name}"${near === undefined ? '' : ` (did you mean "${near}"?)`}\n\n${usage()}`)
    return 2
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${command.help}\n`)
    return 0
  }
  const result = await command.run(rest)()
  if (E.isRight(result)) return result.right
  printError(command.name, result.left)
  return exitCode(result.left)
}

/** Prints what went wrong: a usage error with the help hint, a stop on stdout (it is no failure). */
const printError = (name: string, error: CliError): void => {
  switch (error._tag) {
    case 'Usage':
      return void process.stderr.write(`mtrl ${name}: ${error.message}\n(see: mtrl ${name} --help)\n`)
    case 'Stopped':
      return void process.stdout.write(`${error.message}\n`)
    case 'BackendUnavailable':
    case 'Failed':
      return void process.stderr.write(`mtrl ${name}: ${error.message}\n`)
  }
}

// A closed pipe (`mtrl info | head`) ends the command quietly.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0)
  throw e
})

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (e: unknown) => {
    process.stderr.write(`mtrl: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
    process.exitCode = 1
  }
)
