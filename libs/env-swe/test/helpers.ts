import * as fs from 'node:fs'
import * as E from 'fp-ts/lib/Either.js'
import * as Sandbox from '../src/Sandbox.js'
import * as Workspace from '../src/Workspace.js'

/** Tight limits for adversarial runs on a shared machine. */
export const tight: Sandbox.Limits = { timeoutMs: 2000, memoryMb: 256, maxProcesses: 32, maxFileMb: 1, maxOutputBytes: 64 * 1024 }

/** Runs `code` as a script in a fresh workspace with the given guards; disposes the workspace. */
export const runScript = async (code: string, guards: ReadonlyArray<Sandbox.Guard>, limits: Sandbox.Limits = tight) => {
  const ws = Workspace.make({ 'main.js': code })
  try {
    const r = await Sandbox.run({ writeDir: ws.repoDir, readPaths: [], script: `${ws.repoDir}/main.js`, nodeArgs: [], limits, guards, prepare: ws.prepare })()
    if (E.isLeft(r)) throw new Error(Sandbox.errorMessage(r.left))
    return { ...r.right, ws }
  } finally {
    ws.dispose()
  }
}

/** Processes whose command line contains `needle` (other than this one). */
export const processesWith = (needle: string): number[] =>
  fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid)
    .filter((d) => {
      try {
        return fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(needle)
      } catch {
        return false
      }
    })
    .map(Number)

/** Every available guard but these. */
export const without = (...guards: ReadonlyArray<Sandbox.Guard>): ReadonlyArray<Sandbox.Guard> => Sandbox.probe().available.filter((g) => !guards.includes(g))
