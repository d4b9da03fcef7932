import { Program } from '@mtrl/cli'
import { vi } from 'vitest'

/**
 * The same command line in this process (Program.run on the app's commands, its output and
 * errors captured, `env` set for the call): for the tests of what a command does, where starting
 * a process is not what is tested (each start loads every library from source: seconds of CPU).
 * The spawning, exit codes and backend choice of the process are Cli.test's tests that run the bin.
 */
export const inProcess = async (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}) => {
  const commands = await (await import('../../src/commands/all.js')).all()
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]))
  Object.assign(process.env, env)
  let stdout = ''
  let stderr = ''
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true))
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true))
  try {
    const code = await Program.run({ name: 'mtrl', about: '', commands })(args)
    return { code, stdout, stderr }
  } finally {
    out.mockRestore()
    err.mockRestore()
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
  }
}
