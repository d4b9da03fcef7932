/**
 * The `webgpu` backend in Node: TensorFlow.js's WebGPU backend (`@tensorflow/tfjs-backend-webgpu`)
 * on Dawn, the WebGPU engine of Chrome, from the `webgpu` package (prebuilt for Linux, macOS and
 * Windows). One code path reaches NVIDIA, AMD and Intel GPUs through Vulkan, Apple's through
 * Metal, Windows' through D3D12.
 *
 * Dawn answers GPU reads only asynchronously and Node has no `OffscreenCanvas`, through which the
 * backend reads synchronously in browsers; mtrl's model reads synchronously (`dataSync`). So the
 * device runs on a thread of its own and the main thread drives it through a proxy backend that
 * waits for each answer (internal/webgpuProxy.ts): every op, autodiff and `dataSync` work as on
 * any backend, at the price of one round trip between threads per kernel.
 *
 * Software adapters (SwiftShader, lavapipe, WARP) are exact enough to test on and slower than the
 * CPU backends: `auto` never takes one (see {@link hardwareLikely}); `--backend webgpu` does. On
 * Linux, when no Vulkan driver list is set (`VK_ICD_FILENAMES`, `VK_DRIVER_FILES`), SwiftShader's
 * Vulkan driver from Debian's `chromium` package is added to the drivers Vulkan finds
 * (`VK_ADD_DRIVER_FILES`): Dawn needs features that Debian 12's lavapipe (Mesa 22.3) lacks.
 *
 * @since 0.6.0
 */
import * as tf from '@tensorflow/tfjs'
import { existsSync, readdirSync } from 'node:fs'
import { missingPackages, registerKernels, startThread, WebGpuProxy, type AdapterInfo } from './internal/webgpuProxy.js'

/**
 * The adapter the backend runs on, as Dawn names it (`GPUAdapterInfo`), and whether it is a
 * software device (a fallback adapter, or SwiftShader, llvmpipe/lavapipe, WARP by name).
 *
 * @category models
 * @since 0.6.0
 */
export type Adapter = AdapterInfo

/**
 * One line naming an adapter: `nvidia hopper (NVIDIA H100 80GB HBM3)`, or
 * `google swiftshader (SwiftShader driver 5.0.0), software`.
 *
 * @category destructors
 * @since 0.6.0
 */
export const describe = (adapter: Adapter): string => {
  const name = [adapter.vendor, adapter.architecture].filter((s) => s !== '').join(' ') || 'unnamed adapter'
  const detail = adapter.description !== '' ? adapter.description : adapter.device
  return `${name}${detail !== '' ? ` (${detail})` : ''}${adapter.software ? ', software' : ', hardware'}`
}

/** Where Debian's (and Fedora's) chromium put SwiftShader's Vulkan driver. */
const swiftShaderDrivers = ['/usr/lib/chromium/vk_swiftshader_icd.json', '/usr/lib64/chromium-browser/vk_swiftshader_icd.json']

/** Adds SwiftShader's Vulkan driver to those Vulkan finds, unless the user chose the drivers. */
const addSoftwareVulkan = (env: NodeJS.ProcessEnv): void => {
  if (process.platform !== 'linux' || env['VK_ICD_FILENAMES'] !== undefined || env['VK_DRIVER_FILES'] !== undefined) return
  const found = swiftShaderDrivers.find((path) => existsSync(path))
  if (found === undefined) return
  const added = (env['VK_ADD_DRIVER_FILES'] ?? '').split(':').filter((s) => s !== '')
  if (!added.includes(found)) env['VK_ADD_DRIVER_FILES'] = [...added, found].join(':')
}

const firstLine = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? ''

/**
 * Whether this machine has a GPU device node (Linux: `/dev/nvidia*`, `/dev/dri/renderD*`;
 * macOS and Windows: always): `auto` starts Dawn only then, so that a machine without a GPU pays
 * nothing for the check and prints none of Vulkan's warnings.
 *
 * @category checks
 * @since 0.6.0
 */
export const hardwareLikely = (): boolean => {
  if (process.platform !== 'linux') return true
  const list = (dir: string): ReadonlyArray<string> => {
    try {
      return readdirSync(dir)
    } catch {
      return []
    }
  }
  return list('/dev').some((n) => /^nvidia\d+$/.test(n)) || list('/dev/dri').some((n) => n.startsWith('renderD'))
}

/** Why the `webgpu` package cannot be had here, or `undefined` when it can. */
const missingPackage = (): string | undefined => {
  const missing = missingPackages()
  return missing === undefined
    ? undefined
    : `the webgpu package is not installed (an optional dependency of @mtrl/backend: npm install webgpu@0.6.2): ${missing}`
}

/**
 * Finds the adapter Dawn would use (a hardware one first, else a software one), without
 * starting a device or changing the TensorFlow.js backend. A string says why there is none.
 *
 * @example
 * import { WebGpu } from '@mtrl/backend'
 * const found = WebGpu.probe()
 * console.log(typeof found === 'string' ? `no WebGPU: ${found}` : WebGpu.describe(found))
 *
 * @category constructors
 * @since 0.6.0
 */
export const probe = (): Adapter | string => {
  const missing = missingPackage()
  if (missing !== undefined) return missing
  addSoftwareVulkan(process.env)
  const thread = startThread()
  try {
    return thread.request({ op: 'init', probeOnly: true }).info!
  } catch (e) {
    return firstLine(e)
  } finally {
    thread.close()
  }
}

let active: { readonly adapter: Adapter } | undefined

/**
 * Starts the WebGPU thread, registers the `webgpu` backend and makes it the active one; returns
 * its adapter, or why it could not (no `webgpu` package, no adapter, only a software adapter
 * when `software` is false). Started once per process: later calls switch back to it.
 *
 * @category constructors
 * @since 0.6.0
 */
export const activate = async (options: { readonly software: boolean }): Promise<Adapter | string> => {
  if (active !== undefined) {
    if (active.adapter.software && !options.software) return `the only adapter is a software one (${describe(active.adapter)})`
    return (await tf.setBackend('webgpu')) ? active.adapter : 'tf.setBackend("webgpu") returned false'
  }
  const missing = missingPackage()
  if (missing !== undefined) return missing
  addSoftwareVulkan(process.env)
  const thread = startThread()
  let adapter: Adapter
  try {
    const answer = thread.request({ op: 'init', allowSoftware: options.software })
    adapter = answer.info!
    registerKernels(answer.kernels!)
  } catch (e) {
    thread.close()
    return firstLine(e)
  }
  if (tf.findBackendFactory('webgpu') !== null) tf.removeBackend('webgpu')
  const backend = new WebGpuProxy(thread)
  tf.registerBackend('webgpu', () => backend)
  if (!(await tf.setBackend('webgpu'))) return 'tf.setBackend("webgpu") returned false'
  active = { adapter }
  return adapter
}
