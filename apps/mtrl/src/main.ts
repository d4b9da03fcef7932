/**
 * The mtrl command line: one verb per pipeline, each a thin composition of the @mtrl libraries.
 */
import { Program } from '@mtrl/cli'

/** Registers the environment kinds of the modules `MTRL_ENV_MODULES` names (src/EnvModules.ts), before the commands read the registry. */
const registerEnvModules = async (list: string | undefined): Promise<void> => {
  const specifiers = (list ?? '').split(',').filter((s) => s.trim() !== '')
  if (specifiers.length > 0) await (await import('./EnvModules.js')).register(specifiers)
}

const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  await registerEnvModules(process.env['MTRL_ENV_MODULES'])
  const { commandsFor } = await import('./commands/all.js')
  const commands = await commandsFor(argv[0])
  const about = 'multi-turn agentic reinforcement learning for language-model agents'
  const footer = 'Backend: --backend auto|webgpu|tensorflow|wasm|cpu or MTRL_BACKEND (auto: webgpu on a hardware GPU, then tensorflow, then wasm, then cpu).'
  return Program.run({ name: 'mtrl', about, commands, footer })(argv)
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
