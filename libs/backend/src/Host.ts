/**
 * The backend of a program, as a command starts it and `mtrl info` reports it: the name asked
 * for (a flag, else `MTRL_BACKEND`, else `auto`) selected and activated, with a note naming what
 * was chosen and a faster backend that could be installed; and the host's report: versions, the
 * backend in use, which accelerated providers load, the WebGPU adapter.
 *
 * @since 0.7.0
 */
import * as tf from '@tensorflow/tfjs'
import * as E from 'fp-ts/lib/Either.js'
import type * as TE from 'fp-ts/lib/TaskEither.js'
import * as Backend from './Backend.js'
import * as WebGpu from './WebGpu.js'

/**
 * Selects and activates the backend `flag` names (absent: `MTRL_BACKEND`'s, else `auto`);
 * `note`, when given, is told `backend: NAME (VIA, N threads)` and the hint of a faster one.
 * An unknown name is `UnknownBackend`, one that does not start `Unavailable`.
 *
 * @example
 * import { Host } from '@mtrl/backend'
 * const selected = await Host.start('cpu', console.error)()
 * // Right({ name: 'cpu', via: '@tensorflow/tfjs-core', threads: 1 }); "backend: cpu (...)" noted
 *
 * @category constructors
 * @since 0.7.0
 */
export const start =
  (flag: string | undefined, note?: (text: string) => void, env: NodeJS.ProcessEnv = process.env): TE.TaskEither<Backend.BackendError, Backend.Selected> =>
  async () => {
    const parsed = flag === undefined ? Backend.fromEnvironment(env) : Backend.parseName(flag)
    if (typeof parsed !== 'string') return E.left(parsed)
    const result = await Backend.select(parsed)()
    if (E.isLeft(result) || note === undefined) return result
    const { name, via, threads } = result.right
    note(`backend: ${name} (${via}, ${threads} thread${threads === 1 ? '' : 's'})`)
    const hint = Backend.fasterHint(result.right, Backend.availability())
    if (hint !== undefined) note(hint)
    return result
  }

/**
 * What runs here: Node and its platform, TensorFlow.js, the backend in use, the accelerated
 * providers and whether they load, and the WebGPU adapter (or why there is none).
 *
 * @category models
 * @since 0.7.0
 */
export interface Report {
  readonly node: string
  readonly platform: string
  readonly tfjs: string
  readonly backend: Backend.Selected
  readonly accelerators: Backend.Availability
  readonly webgpu: { readonly available: false; readonly reason: string } | { readonly available: true; readonly adapter: WebGpu.Adapter }
}

/**
 * The report of `selected` (its adapter on `webgpu`, else a probe for one) and `availability`.
 *
 * @category constructors
 * @since 0.7.0
 */
export const report = (selected: Backend.Selected, availability: Backend.Availability = Backend.availability()): Report => {
  const gpu = selected.adapter ?? WebGpu.probe()
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    tfjs: tf.version.tfjs,
    backend: selected,
    accelerators: availability,
    webgpu: typeof gpu === 'string' ? { available: false, reason: gpu } : { available: true, adapter: gpu }
  }
}

/**
 * The report as `[label, value]` rows for people: node, TensorFlow.js, backend, threads, WebGPU
 * adapter, then `between` (the caller's rows), then one row per accelerated provider.
 *
 * @category destructors
 * @since 0.7.0
 */
export const rows = (r: Report, between: ReadonlyArray<readonly [string, string]> = []): ReadonlyArray<readonly [string, string]> => [
  ['node', `${r.node} (${r.platform})`],
  ['@tensorflow/tfjs', r.tfjs],
  ['backend', `${r.backend.name} via ${r.backend.via}`],
  ['threads', String(r.backend.threads)],
  ['webgpu adapter', r.webgpu.available ? WebGpu.describe(r.webgpu.adapter) : `none: ${r.webgpu.reason}`],
  ...between,
  ...Object.entries(r.accelerators).map(
    ([pkg, probe]: [string, Backend.Probe]) => [pkg, probe.installed ? `available (${probe.version})` : `not available: ${probe.reason}`] as const
  )
]
