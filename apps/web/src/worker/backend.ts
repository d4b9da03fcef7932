/**
 * The TensorFlow.js backend of the page's worker: the best the browser offers. `auto` takes
 * WebGPU on a hardware adapter, then WebGL on a hardware renderer, then WebAssembly (threads when
 * the page is cross-origin isolated, SIMD when the engine has it). Software GPUs (SwiftShader,
 * llvmpipe, a fallback adapter) are skipped by `auto`: at mtrl's model sizes they are slower than
 * wasm. The wasm binaries come from the build (no CDN).
 */
import * as tf from '@tensorflow/tfjs'
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm'
import plainWasm from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm?url'
import simdWasm from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm?url'
import threadedWasm from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm?url'
import type { BackendChoice, BackendReport } from './protocol.js'
import { sumInRounds } from './webgpuAddN.js'

const software = /swiftshader|llvmpipe|softpipe|software|basic render/i

interface Probe {
  readonly usable: boolean
  readonly hardware: boolean
  readonly detail: string
}

const probeWebGpu = async (): Promise<Probe> => {
  const gpu = (navigator as { gpu?: { requestAdapter: () => Promise<unknown> } }).gpu
  if (gpu === undefined) return { usable: false, hardware: false, detail: 'no WebGPU' }
  try {
    const adapter = (await gpu.requestAdapter()) as {
      isFallbackAdapter?: boolean
      info?: { vendor?: string; architecture?: string; description?: string }
    } | null
    if (adapter === null) return { usable: false, hardware: false, detail: 'no WebGPU adapter' }
    const name = [adapter.info?.vendor, adapter.info?.architecture, adapter.info?.description].filter((s) => s).join(' ') || 'adapter'
    const hardware = adapter.isFallbackAdapter !== true && !software.test(name)
    return { usable: true, hardware, detail: `WebGPU ${name}${hardware ? '' : ' (software)'}` }
  } catch (e) {
    return { usable: false, hardware: false, detail: `WebGPU failed: ${String(e)}` }
  }
}

const probeWebGl = (): Probe => {
  try {
    const canvas = new OffscreenCanvas(1, 1)
    const gl = canvas.getContext('webgl2') as WebGL2RenderingContext | null
    if (gl === null) return { usable: false, hardware: false, detail: 'no WebGL 2' }
    const info = gl.getExtension('WEBGL_debug_renderer_info')
    const renderer = String(info === null ? gl.getParameter(gl.RENDERER) : gl.getParameter(info.UNMASKED_RENDERER_WEBGL))
    const hardware = !software.test(renderer)
    return { usable: true, hardware, detail: `WebGL 2 ${renderer}${hardware ? '' : ' (software)'}` }
  } catch (e) {
    return { usable: false, hardware: false, detail: `WebGL failed: ${String(e)}` }
  }
}

const isolated = (): boolean => (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true

const startWasm = async (): Promise<string> => {
  setWasmPaths({ 'tfjs-backend-wasm.wasm': plainWasm, 'tfjs-backend-wasm-simd.wasm': simdWasm, 'tfjs-backend-wasm-threaded-simd.wasm': threadedWasm })
  const threads = isolated() ? Math.max(1, navigator.hardwareConcurrency || 1) : 1
  if (threads > 1) setThreadsCount(threads)
  await tf.setBackend('wasm')
  await tf.ready()
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')
  const multi = await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')
  return `WebAssembly, SIMD ${simd ? 'on' : 'off'}, ${multi ? `${threads} threads` : 'one thread'}${isolated() ? '' : ' (the page is not cross-origin isolated)'}`
}

/**
 * mtrl reads tensors synchronously (`dataSync`: the sampler, the embedding lookup, the optimizer).
 * Some browsers' WebGPU cannot: Chromium on Linux with GL compositing (its default) reads zeros
 * and loses the device. A backend whose read is wrong is not used.
 */
const checkSyncRead = (): void => {
  const sum = tf.tidy(() => tf.add(tf.tensor1d([1, 2, 3]), 1))
  const read = Array.from(sum.dataSync())
  sum.dispose()
  if (read.join(',') !== '2,3,4') throw new Error(`its synchronous read gave ${read.join(', ')} for 2, 3, 4`)
}

const startGpu = async (name: 'webgpu' | 'webgl'): Promise<void> => {
  if (name === 'webgpu') {
    await import('@tensorflow/tfjs-backend-webgpu')
    sumInRounds()
  }
  if (!(await tf.setBackend(name))) throw new Error(`${name} did not start`)
  await tf.ready()
  checkSyncRead()
}

/** Activates `choice` (or the best available for `auto`) and says which one runs and why. */
export const activate = async (choice: BackendChoice): Promise<BackendReport> => {
  const report = (name: string, detail: string): BackendReport => ({ name, detail, crossOriginIsolated: isolated() })
  if (choice === 'wasm') return report('wasm', await startWasm())
  const gpu = choice === 'webgl' ? undefined : await probeWebGpu()
  const gl = choice === 'webgpu' ? undefined : probeWebGl()
  const pick =
    choice === 'auto' ? (gpu?.hardware === true ? 'webgpu' : gl?.hardware === true ? 'webgl' : undefined) : gpu?.usable || gl?.usable ? choice : undefined
  const probes = [gpu?.detail, gl?.detail].filter((d) => d !== undefined).join('; ')
  if (pick !== undefined) {
    try {
      await startGpu(pick)
      return report(pick, pick === 'webgpu' ? (gpu?.detail ?? '') : (gl?.detail ?? ''))
    } catch (e) {
      return report('wasm', `${await startWasm()}; ${pick} failed: ${String(e)}`)
    }
  }
  return report('wasm', `${await startWasm()}; ${choice === 'auto' ? 'skipped' : 'unavailable'}: ${probes}`)
}
