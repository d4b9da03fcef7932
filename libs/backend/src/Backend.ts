/**
 * Choosing the TensorFlow.js compute backend. Libraries never load a backend; the app (and
 * tests, and benchmarks) call {@link select} once at start-up.
 *
 * Order for `auto`: `webgpu` on a hardware GPU adapter (never a software one; see WebGpu.ts),
 * then `tensorflow` through `@tensorflow/tfjs-node-gpu` (CUDA), then through
 * `@tensorflow/tfjs-node` (CPU, oneDNN), then `wasm` (always installable), then `cpu` (pure JS).
 * A backend asked for by name that cannot be had is an error, never a silent fallback.
 *
 * @since 0.1.0
 */
import * as tf from '@tensorflow/tfjs'
import * as TE from 'fp-ts/lib/TaskEither.js'
import { existsSync, readdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import * as CpuKernels from './internal/cpuKernels.js'
import * as WebGpu from './WebGpu.js'

/**
 * Names accepted by `--backend` / `MTRL_BACKEND`.
 *
 * @category models
 * @since 0.1.0
 */
export type Name = 'auto' | 'webgpu' | 'tensorflow' | 'wasm' | 'cpu'

/** @category models @since 0.1.0 */
export const names: ReadonlyArray<Name> = ['auto', 'webgpu', 'tensorflow', 'wasm', 'cpu']

/**
 * The backend in use, and what provides it.
 *
 * @category models
 * @since 0.1.0
 */
export interface Selected {
  readonly name: 'webgpu' | 'tensorflow' | 'wasm' | 'cpu'
  /** The npm package that provides it. */
  readonly via: string
  /** Compute threads it uses (wasm under Node is single-threaded; 1 for webgpu: the GPU computes). */
  readonly threads: number
  /** The GPU adapter, on `webgpu`. */
  readonly adapter?: WebGpu.Adapter
}

/**
 * Whether each accelerated provider can be loaded here.
 *
 * @category models
 * @since 0.1.0
 */
export interface Availability {
  readonly '@tensorflow/tfjs-node-gpu': Probe
  readonly '@tensorflow/tfjs-node': Probe
  readonly '@tensorflow/tfjs-backend-wasm': Probe
}
/** @category models @since 0.1.0 */
export type Probe = { readonly installed: true; readonly version: string } | { readonly installed: false; readonly reason: string }

/**
 * Backend errors.
 *
 * @category models
 * @since 0.1.0
 */
export type BackendError =
  { readonly _tag: 'UnknownBackend'; readonly name: string } | { readonly _tag: 'Unavailable'; readonly name: string; readonly reason: string }

/** @category destructors @since 0.1.0 */
export const message = (error: BackendError): string => {
  switch (error._tag) {
    case 'UnknownBackend':
      return `unknown backend "${error.name}": expected one of ${names.join(', ')}`
    case 'Unavailable':
      return `backend "${error.name}" is not available: ${error.reason}`
  }
}

const requireHere = createRequire(import.meta.url)

const firstLine = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? ''

/** The native binding of a tfjs-node package: its install script builds or downloads it. */
const hasNativeBinding = (pkgDir: string): boolean => {
  const lib = join(pkgDir, 'lib')
  if (!existsSync(lib)) return false
  return readdirSync(lib).some((d) => d.startsWith('napi-v') && existsSync(join(lib, d, 'tfjs_binding.node')))
}

/**
 * Why `@tensorflow/tfjs-node-gpu` has no binding here: it links libtensorflow 2.9 built for CUDA
 * 11.2 and cuDNN 8, which its install script downloads; mtrl's setup builds the CPU binding from
 * the local tensorflow-cpu wheel instead, and no CUDA 11.2 build can be had offline.
 */
const gpuBindingWhy =
  ' (it needs libtensorflow 2.9 for CUDA 11.2 and cuDNN 8, downloaded by its install script: not buildable offline or on CUDA 12/13 drivers; on a GPU use --backend webgpu, or see docs/backends.md)'

const loaded = new Map<string, Probe>()

/** Probes a provider once; tfjs-node packages are loaded only when their binding exists. */
const probeModule = (pkg: string, load: boolean): Probe => {
  const cached = loaded.get(pkg)
  if (cached !== undefined) return cached
  let probe: Probe
  try {
    const manifest = requireHere.resolve(`${pkg}/package.json`)
    const version = (requireHere(manifest) as { version: string }).version
    if (load && !hasNativeBinding(dirname(manifest))) {
      probe = {
        installed: false,
        reason: `${version} is installed but its native binding is not built${pkg === '@tensorflow/tfjs-node-gpu' ? gpuBindingWhy : ''}`
      }
    } else {
      if (load) requireHere(pkg)
      probe = { installed: true, version }
    }
  } catch (e) {
    probe = { installed: false, reason: firstLine(e) }
  }
  loaded.set(pkg, probe)
  return probe
}

/**
 * Probes the providers without switching backends (loading a tfjs-node binding registers the
 * `tensorflow` backend and selects it; the backend active before is selected again).
 *
 * @category constructors
 * @since 0.1.0
 */
export const availability = (): Availability => {
  // Loading a tfjs-node binding makes `tensorflow` the active backend as a side effect: the
  // backend active before the probe is made active again (an initialised backend is switched to
  // at once), so that probing never changes what computes.
  // Before any backend is chosen the engine's name is unset (undefined, not null): nothing to restore.
  const engine = tf.engine() as unknown as { readonly backendName: string | null | undefined }
  const active = engine.backendName
  const probed: Availability = {
    '@tensorflow/tfjs-node-gpu': probeModule('@tensorflow/tfjs-node-gpu', true),
    '@tensorflow/tfjs-node': probeModule('@tensorflow/tfjs-node', true),
    '@tensorflow/tfjs-backend-wasm': probeModule('@tensorflow/tfjs-backend-wasm', false)
  }
  if (active != null && engine.backendName !== active) void tf.setBackend(active)
  return probed
}

let wasmLoaded = false
const loadWasm = async (): Promise<void> => {
  if (wasmLoaded) return
  await import('@tensorflow/tfjs-backend-wasm')
  wasmLoaded = true
}

const activate = async (name: Selected['name']): Promise<void> => {
  // the cpu backend's slow kernels replaced by ones that give the same bits (internal/cpuKernels.ts)
  if (name === 'cpu') CpuKernels.register()
  const ok = await tf.setBackend(name)
  if (!ok) throw new Error(`tf.setBackend("${name}") returned false`)
  await tf.ready()
}

const tryTensorflow = async (): Promise<Selected | string> => {
  const reasons: string[] = []
  for (const pkg of ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node']) {
    const probe = probeModule(pkg, true)
    if (!probe.installed) {
      reasons.push(`${pkg}: ${probe.reason}`)
      continue
    }
    try {
      await activate('tensorflow')
      return { name: 'tensorflow', via: pkg, threads: tensorflowThreads() }
    } catch (e) {
      reasons.push(`${pkg}: ${firstLine(e)}`)
    }
  }
  return `${reasons.join('; ')} (to build it: npm run setup:tensorflow, see README)`
}

const tensorflowThreads = (): number => {
  const fromEnv = Number(process.env['TF_NUM_INTRAOP_THREADS'])
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : availableParallelism()
}

const tryWasm = async (): Promise<Selected | string> => {
  try {
    await loadWasm()
    await activate('wasm')
    return { name: 'wasm', via: '@tensorflow/tfjs-backend-wasm', threads: 1 }
  } catch (e) {
    return firstLine(e)
  }
}

const tryWebGpu = (software: boolean) => async (): Promise<Selected | string> => {
  if (!software && !WebGpu.hardwareLikely()) return 'no GPU device on this machine (/dev/dri/renderD*, /dev/nvidia*)'
  const adapter = await WebGpu.activate({ software })
  if (typeof adapter === 'string') return adapter
  return { name: 'webgpu', via: 'webgpu (Dawn) + @tensorflow/tfjs-backend-webgpu', threads: 1, adapter }
}

const tryCpu = async (): Promise<Selected | string> => {
  try {
    await activate('cpu')
    return { name: 'cpu', via: '@tensorflow/tfjs (backend-cpu)', threads: 1 }
  } catch (e) {
    return firstLine(e)
  }
}

/**
 * One line on the faster backend this machine could have, when `selected` is wasm or cpu and no
 * tfjs-node binding is set up (figures measured on the 2-core machine class); else `undefined`.
 *
 * @example
 * import { Backend } from '@mtrl/backend'
 * declare const selected: Backend.Selected
 * const hint = Backend.fasterHint(selected, Backend.availability())
 *
 * @category destructors
 * @since 0.5.0
 */
export const fasterHint = (selected: Selected, availability: Availability): string | undefined =>
  (selected.name === 'wasm' || selected.name === 'cpu') &&
  !availability['@tensorflow/tfjs-node'].installed &&
  !availability['@tensorflow/tfjs-node-gpu'].installed
    ? 'faster: `npm run setup:tensorflow` (about 30 s, 1.1 GB in .cache/, no download) adds the tensorflow backend, which trains about 3x faster than wasm on 2 cores (sampling is not faster)'
    : undefined

/**
 * Parses a backend name (from a flag or `MTRL_BACKEND`).
 *
 * @category constructors
 * @since 0.1.0
 */
export const parseName = (raw: string): Name | BackendError =>
  (names as ReadonlyArray<string>).includes(raw) ? (raw as Name) : { _tag: 'UnknownBackend', name: raw }

const attemptOf: Record<Selected['name'], () => Promise<Selected | string>> = {
  webgpu: tryWebGpu(true),
  tensorflow: tryTensorflow,
  wasm: tryWasm,
  cpu: tryCpu
}

/**
 * Selects and activates a backend. `auto` takes the first that works in the documented order.
 * Also turns on TensorFlow.js production mode (no debug banners).
 *
 * @category constructors
 * @since 0.1.0
 */
export const select =
  (name: Name): TE.TaskEither<BackendError, Selected> =>
  async () => {
    tf.enableProdMode()
    const attempts: Array<[Selected['name'], () => Promise<Selected | string>]> =
      name === 'auto'
        ? [
            ['webgpu', tryWebGpu(false)],
            ['tensorflow', tryTensorflow],
            ['wasm', tryWasm],
            ['cpu', tryCpu]
          ]
        : [[name, attemptOf[name]]]
    const reasons: string[] = []
    for (const [candidate, attempt] of attempts) {
      const result = await attempt()
      if (typeof result !== 'string') return { _tag: 'Right', right: result }
      reasons.push(`${candidate}: ${result}`)
    }
    return { _tag: 'Left', left: { _tag: 'Unavailable', name, reason: reasons.join('; ') } }
  }

/**
 * The backend name asked for by the environment (`MTRL_BACKEND`), `auto` when unset.
 *
 * @category constructors
 * @since 0.1.0
 */
export const fromEnvironment = (env: NodeJS.ProcessEnv = process.env): Name | BackendError => parseName(env['MTRL_BACKEND'] ?? 'auto')

/**
 * Selects and activates the backend the environment asks for (`MTRL_BACKEND`, `auto` when
 * unset): what a script or a bench without flags runs on. An unknown name is a Left.
 *
 * @category constructors
 * @since 0.2.0
 */
export const selectFromEnvironment = (env: NodeJS.ProcessEnv = process.env): TE.TaskEither<BackendError, Selected> => {
  const name = fromEnvironment(env)
  return typeof name === 'string' ? select(name) : TE.left(name)
}
