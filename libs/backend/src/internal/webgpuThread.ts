/**
 * The program of the WebGPU thread (run with `new Worker(source, { eval: true })`). Dawn, the
 * engine of the `webgpu` package, hands GPU buffers back to JavaScript only through promises that
 * the thread's event loop settles, and TensorFlow.js's WebGPU backend reads synchronously only
 * through an `OffscreenCanvas`, which Node lacks: `dataSync()` cannot work on the thread that owns
 * the device. So the device and the real backend live on this thread, and the main thread drives
 * it through a proxy backend (./webgpuProxy.ts) that blocks on `Atomics.wait` until this thread
 * answers: a read here awaits the buffer while the main thread waits.
 *
 * Messages in (on `port`): `init`, `write`, `dispose`, `run`, `read`. `write` and `dispose` get no
 * answer (an error in them is reported with the next answer); the others answer once, on `port`,
 * then set `flag[0]` to 1 and notify. The program is plain JavaScript (CommonJS): a worker started
 * from a string loads no TypeScript, and it requires only the packages whose paths it is given.
 */
export const source = String.raw`
const { workerData } = require('node:worker_threads')
const { port, flag: flagBuffer, paths } = workerData
const flag = new Int32Array(flagBuffer)
let deferred
const answer = (message) => {
  if (deferred !== undefined && message.ok) message = { ok: false, error: deferred }
  deferred = undefined
  port.postMessage(message)
  Atomics.store(flag, 0, 1)
  Atomics.notify(flag, 0)
}
const firstLine = (e) => String(e && e.message !== undefined ? e.message : e).split('\n')[0]
const software = /swiftshader|llvmpipe|lavapipe|softpipe|warp|basic render/i
const describe = (adapter) => {
  const info = adapter.info || {}
  const text = [info.vendor, info.architecture, info.device, info.description].join(' ')
  return {
    vendor: info.vendor || '',
    architecture: info.architecture || '',
    device: info.device || '',
    description: info.description || '',
    software: info.isFallbackAdapter === true || adapter.isFallbackAdapter === true || software.test(text)
  }
}
let tf
let maxStorageBuffers = 8
const tensors = new Map()
let nextId = 1
const init = async ({ allowSoftware, probeOnly }) => {
  const { create, globals } = await import(paths.webgpu)
  for (const [name, value] of Object.entries(globals)) if (!(name in globalThis)) globalThis[name] = value
  const gpu = create([])
  if (globalThis.navigator === undefined) globalThis.navigator = {}
  Object.defineProperty(globalThis.navigator, 'gpu', { value: gpu, configurable: true })
  let adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' })
  if (adapter === null) adapter = await gpu.requestAdapter({ forceFallbackAdapter: true })
  if (adapter === null) return { ok: false, error: 'Dawn found no WebGPU adapter (no Vulkan, Metal or D3D12 driver it can use)' }
  const info = describe(adapter)
  if (probeOnly) return { ok: true, info, kernels: [] }
  if (info.software && !allowSoftware) return { ok: false, info, error: 'the only adapter is a software one (' + [info.vendor, info.architecture, info.description].filter((s) => s).join(' ') + '): auto never takes it; --backend webgpu does' }
  const limits = adapter.limits
  const requiredLimits = {}
  for (const name of ['maxStorageBuffersPerShaderStage', 'maxComputeWorkgroupStorageSize', 'maxComputeWorkgroupsPerDimension', 'maxStorageBufferBindingSize', 'maxBufferSize', 'maxComputeWorkgroupSizeX', 'maxComputeInvocationsPerWorkgroup'])
    requiredLimits[name] = limits[name]
  const device = await adapter.requestDevice({ requiredLimits })
  maxStorageBuffers = device.limits.maxStorageBuffersPerShaderStage
  device.addEventListener('uncapturederror', (event) => { deferred = deferred ?? 'WebGPU: ' + String(event.error.message).split('\n').slice(0, 3).join(' / ') })
  tf = require(paths.core)
  const { WebGPUBackend } = require(paths.backend)
  if (tf.findBackendFactory('webgpu') !== null) tf.removeBackend('webgpu')
  tf.registerBackend('webgpu', () => new WebGPUBackend(device, adapter.info))
  if (!(await tf.setBackend('webgpu'))) return { ok: false, info, error: 'TensorFlow.js could not start its WebGPU backend on the adapter' }
  tf.enableProdMode()
  return { ok: true, info, kernels: tf.getKernelsForBackend('webgpu').map((k) => k.kernelName) }
}
// The backend's AddN binds every input to one shader: more than the device's storage buffers per
// stage (8 by default, 12 on SwiftShader) fails validation; a sum of many gradients (a global
// norm) is taken in rounds of at most that many.
const addN = (inputs) => {
  const most = Math.max(2, maxStorageBuffers - 1)
  const made = []
  let parts = inputs
  while (parts.length > most) {
    const next = []
    for (let i = 0; i < parts.length; i += most) {
      const chunk = parts.slice(i, i + most)
      next.push(chunk.length === 1 ? chunk[0] : tf.engine().runKernel('AddN', chunk, {}))
      if (chunk.length > 1) made.push(next[next.length - 1])
    }
    parts = next
  }
  const out = tf.engine().runKernel('AddN', parts, {})
  for (const t of made) t.dispose()
  return out
}
const run = ({ kernel, inputs, attrs }) => {
  const args = Array.isArray(inputs) ? inputs.map((id) => tensors.get(id)) : {}
  if (!Array.isArray(inputs)) for (const [name, id] of Object.entries(inputs)) args[name] = tensors.get(id)
  const out = kernel === 'AddN' ? addN(args) : tf.engine().runKernel(kernel, args, attrs)
  return {
    ok: true,
    outs: (Array.isArray(out) ? out : [out]).map((t) => {
      const id = nextId++
      tensors.set(id, t)
      return { id, shape: t.shape, dtype: t.dtype }
    })
  }
}
port.on('message', async (m) => {
  try {
    switch (m.op) {
      case 'init': return answer(await init(m))
      case 'write': return void tensors.set(m.id, tf.tensor(m.values, m.shape, m.dtype))
      case 'dispose': {
        const t = tensors.get(m.id)
        tensors.delete(m.id)
        return void (t !== undefined && t.dispose())
      }
      case 'run': return answer(run(m))
      case 'read': return answer({ ok: true, values: await tensors.get(m.id).data() })
      case 'memory': return answer({ ok: true, memory: tf.memory() })
    }
  } catch (e) {
    if (m.op === 'write' || m.op === 'dispose') deferred = deferred ?? firstLine(e)
    else answer({ ok: false, error: firstLine(e) })
  }
})
`
