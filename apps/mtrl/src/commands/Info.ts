/**
 * `mtrl info`: versions, the chosen backend, and which accelerated backends are installed.
 */
import { Backend, WebGpu } from '@mtrl/backend'
import { Budget } from '@mtrl/env-swe'
import * as tf from '@tensorflow/tfjs'
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
      const gpu = selected.adapter ?? WebGpu.probe()
      const sweHost = Budget.host()
      const report = {
        mtrl: versionOf('mtrl'),
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
        tfjs: tf.version.tfjs,
        backend: selected,
        accelerators: availability,
        webgpu: typeof gpu === 'string' ? { available: false, reason: gpu } : { available: true, adapter: gpu },
        sweHostBudget: E.isLeft(sweHost) ? { error: sweHost.left } : sweHost.right
      }
      if (values.json === true) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
        return E.right(0)
      }
      const line = (k: string, v: string) => process.stdout.write(`${k.padEnd(28)} ${v}\n`)
      line('mtrl', report.mtrl)
      line('node', `${report.node} (${report.platform})`)
      line('@tensorflow/tfjs', report.tfjs)
      line('backend', `${selected.name} via ${selected.via}`)
      line('threads', String(selected.threads))
      line('webgpu adapter', typeof gpu === 'string' ? `none: ${gpu}` : WebGpu.describe(gpu))
      line('swe sandbox host budget', E.isLeft(sweHost) ? `invalid: ${sweHost.left}` : Budget.describe(sweHost.right))
      for (const [pkg, probe] of Object.entries(availability)) line(pkg, probe.installed ? `available (${probe.version})` : `not available: ${probe.reason}`)
      const hint = Backend.fasterHint(selected, availability)
      if (hint !== undefined) process.stdout.write(`${hint}\n`)
      return E.right(0)
    }
})
