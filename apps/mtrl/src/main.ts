/**
 * The mtrl command line: one verb per pipeline, each a thin composition of the @mtrl libraries.
 */
import { Decode, type EnvEntry } from '@mtrl/core'
import { EnvConfig } from '@mtrl/recipe'
import * as E from 'fp-ts/lib/Either.js'
import { pathToFileURL } from 'node:url'
import { exitCode, type CliError, type Command } from './Command.js'

/**
 * Registers the environment kinds of the modules `MTRL_ENV_MODULES` names (comma-separated
 * packages or paths, each exporting `entry`, an `EnvEntry`), before the commands read the registry.
 */
const registerEnvModules = async (list: string | undefined): Promise<void> => {
  for (const specifier of (list ?? '').split(',').filter((s) => s.trim() !== '')) {
    const path = specifier.trim()
    const loaded = (await import(path.startsWith('.') || path.startsWith('/') ? pathToFileURL(path).href : path)) as { readonly entry?: EnvEntry.EnvEntry }
    if (loaded.entry === undefined) throw new Error(`MTRL_ENV_MODULES: ${path} exports no "entry"`)
    EnvConfig.register(loaded.entry)
  }
}

const usage = (commands: ReadonlyArray<Command>): string =>
  `mtrl: multi-turn agentic reinforcement learning for language-model agents

Usage: mtrl <command> [flags]      (mtrl <command> --help for details and examples)

Commands:
${commands.map((c) => `  ${c.name.padEnd(14)} ${c.summary}`).join('\n')}

Backend: --backend auto|webgpu|tensorflow|wasm|cpu or MTRL_BACKEND (auto: webgpu on a hardware GPU, then tensorflow, then wasm, then cpu).
`

const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  await registerEnvModules(process.env['MTRL_ENV_MODULES'])
  const { commands } = await import('./commands/all.js')
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage(commands))
    return name === undefined ? 2 : 0
  }
  const command = commands.find((c) => c.name === name)
  if (command === undefined) {
    const near = Decode.nearest(
      name,
      commands.map((c) => c.name)
    )
    process.stderr.write(`mtrl: unknown command "${name}"${near === undefined ? '' : ` (did you mean "${near}"?)`}\n\n${usage(commands)}`)
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
