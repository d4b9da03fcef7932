/**
 * `mtrl info`: versions, the chosen backend, and which accelerated backends are installed.
 */
import { Backend, Host } from '@mtrl/backend'
import { Budget } from '@mtrl/env-swe'
import { createRequire } from 'node:module'
import * as E from 'fp-ts/lib/Either.js'
import { backendFlag, bool, make } from '../Command.js'
import { startBackend } from '../Runtime.js'

const require = createRequire(import.meta.url)
const versionOf = (pkg: string): string => {
  try {
    return (require(`${pkg}/package.json`) as { version: string }).version
  } catch {
    return 'not installed'
  }
}

export const info = make({
  name: 'info',
  summary: 'versions, compute backend, installed accelerators',
  help: `mtrl info [--backend auto|webgpu|tensorflow|wasm|cpu] [--json]

Prints the versions of mtrl and its engine, the compute backend that would be used (and
activates it, so an unavailable forced backend fails here), whether each accelerated
backend is installed, and the WebGPU adapter: vendor, architecture, and whether it is a
software device (which auto never takes). Also the host's budget of SWE sandbox runs (runs
and sandbox memory at once, shared by every process on the host; MTRL_SWE_HOST_RUNS,
MTRL_SWE_HOST_MEMORY_MB and MTRL_SWE_HOST_DIR override it).

Examples:
  mtrl info
  mtrl info --backend cpu
  MTRL_BACKEND=wasm mtrl info --json`,
  flags: { ...backendFlag, json: bool },
  run:
    ({ values }) =>
    async () => {
      const availability = Backend.availability()
      const started = await startBackend(values.backend, true)()
      if (E.isLeft(started)) return started
      const selected = started.right
      const sweHost = Budget.host()
      const sweHostBudget = E.isLeft(sweHost) ? { error: sweHost.left } : sweHost.right
      const report = { mtrl: versionOf('mtrl'), ...Host.report(selected, availability), sweHostBudget }
      if (values.json === true) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
        return E.right(0)
      }
      const swe = ['swe sandbox host budget', E.isLeft(sweHost) ? `invalid: ${sweHost.left}` : Budget.describe(sweHost.right)] as const
      for (const [k, v] of [['mtrl', report.mtrl] as const, ...Host.rows(report, [swe])]) process.stdout.write(`${k.padEnd(28)} ${v}\n`)
      const hint = Backend.fasterHint(selected, availability)
      if (hint !== undefined) process.stdout.write(`${hint}\n`)
      return E.right(0)
    }
})
