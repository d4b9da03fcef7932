/**
 * The main thread's side of the WebGPU backend in Node: a TensorFlow.js backend named `webgpu`
 * whose tensors live on the WebGPU thread (./webgpuThread.ts). Every kernel the thread's backend
 * has is registered here under the same name; running one posts it to the thread and waits
 * (`Atomics.wait`) for the shapes of its outputs, so the engine, autodiff, `tidy` and variables
 * stay on the main thread as on any backend, and `dataSync()` works (the thread awaits the GPU
 * buffer while this thread blocks). Writes and disposals are posted without waiting.
 */
import * as tf from '@tensorflow/tfjs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import { source } from './webgpuThread.js'

/** What the thread says of its adapter. */
export interface AdapterInfo {
  readonly vendor: string
  readonly architecture: string
  readonly device: string
  readonly description: string
  readonly software: boolean
}

type Answer =
  | { readonly ok: false; readonly error: string; readonly info?: AdapterInfo }
  | {
      readonly ok: true
      readonly info?: AdapterInfo
      readonly kernels?: ReadonlyArray<string>
      readonly outs?: ReadonlyArray<{ readonly id: number; readonly shape: number[]; readonly dtype: tf.DataType }>
      readonly values?: tf.backend_util.BackendValues
      readonly memory?: tf.MemoryInfo
    }

/** A started thread: `request` blocks until it answers. */
export interface Thread {
  readonly request: (message: object) => Answer & { readonly ok: true }
  readonly post: (message: object) => void
  readonly close: () => void
}

const requireHere = createRequire(import.meta.url)

/** Paths of the packages the thread loads (the same copies this package resolves). */
const packagePaths = (): { webgpu: string; backend: string; core: string } => {
  const backend = requireHere.resolve('@tensorflow/tfjs-backend-webgpu')
  const core = createRequire(backend).resolve('@tensorflow/tfjs-core')
  const webgpu = pathToFileURL(join(dirname(requireHere.resolve('webgpu/package.json')), 'index.js')).href
  return { webgpu, backend, core }
}

/** Why the thread's packages cannot be loaded here, or `undefined` when they can. */
export const missingPackages = (): string | undefined => {
  try {
    packagePaths()
    return undefined
  } catch (e) {
    return (e instanceof Error ? e.message : String(e)).split('\n')[0]
  }
}

/** Seconds the main thread waits for one answer (a first kernel compiles its shader). */
const patience = 600

/** Starts the thread (it loads nothing until `init`). Throws when `webgpu` is not installed. */
export const startThread = (): Thread => {
  const flag = new Int32Array(new SharedArrayBuffer(4))
  const { port1, port2 } = new MessageChannel()
  const worker = new Worker(source, { eval: true, workerData: { port: port2, flag: flag.buffer, paths: packagePaths() }, transferList: [port2] })
  worker.unref()
  port1.unref()
  const post = (message: object): void => port1.postMessage(message)
  const request = (message: object): Answer & { readonly ok: true } => {
    post(message)
    if (Atomics.wait(flag, 0, 0, patience * 1000) === 'timed-out') throw new Error(`the WebGPU thread did not answer in ${patience} s`)
    Atomics.store(flag, 0, 0)
    const answer = receiveMessageOnPort(port1 as MessagePort)?.message as Answer | undefined
    if (answer === undefined) throw new Error('the WebGPU thread answered nothing')
    if (!answer.ok) throw Object.assign(new Error(answer.error), { info: answer.info })
    return answer
  }
  return { request, post, close: () => void worker.terminate() }
}

/**
 * The proxy backend (TensorFlow.js backends are classes: `KernelBackend` is extended here).
 * Each data id maps to one tensor on the thread, with the reference count the engine keeps.
 */
export class WebGpuProxy extends tf.KernelBackend {
  private readonly ids = new WeakMap<object, number>()
  private readonly refs = new Map<number, number>()
  private nextWrite = -1

  constructor(private readonly thread: Thread) {
    super()
  }

  private track(id: number, refCount: number): tf.DataId {
    const dataId = {}
    this.ids.set(dataId, id)
    this.refs.set(id, refCount)
    return dataId
  }

  private idOf(dataId: tf.DataId): number {
    const id = this.ids.get(dataId)
    if (id === undefined) throw new Error('webgpu: a tensor of another backend, or one already disposed')
    return id
  }

  override write(values: tf.backend_util.BackendValues, shape: number[], dtype: tf.DataType): tf.DataId {
    const id = this.nextWrite--
    this.thread.post({ op: 'write', id, values, shape, dtype })
    return this.track(id, 1)
  }

  override move(dataId: tf.DataId, values: tf.backend_util.BackendValues, shape: number[], dtype: tf.DataType, refCount: number): void {
    const id = this.nextWrite--
    this.thread.post({ op: 'write', id, values, shape, dtype })
    this.ids.set(dataId, id)
    this.refs.set(id, refCount)
  }

  override incRef(dataId: tf.DataId): void {
    const id = this.idOf(dataId)
    this.refs.set(id, (this.refs.get(id) ?? 0) + 1)
  }

  override refCount(dataId: tf.DataId): number {
    const id = this.ids.get(dataId)
    return id === undefined ? 0 : (this.refs.get(id) ?? 0)
  }

  override disposeData(dataId: tf.DataId, force = false): boolean {
    const id = this.ids.get(dataId)
    if (id === undefined || !this.refs.has(id)) return true
    const left = this.refs.get(id)! - 1
    if (left > 0 && !force) {
      this.refs.set(id, left)
      return false
    }
    this.refs.delete(id)
    this.ids.delete(dataId)
    this.thread.post({ op: 'dispose', id })
    return true
  }

  override readSync(dataId: tf.DataId): tf.backend_util.BackendValues {
    return this.thread.request({ op: 'read', id: this.idOf(dataId) }).values!
  }

  override read(dataId: tf.DataId): Promise<tf.backend_util.BackendValues> {
    return Promise.resolve(this.readSync(dataId))
  }

  /** Runs `kernel` on the thread; the outputs' shapes come back. */
  runKernel(kernel: string, inputs: tf.NamedTensorInfoMap, attrs: tf.NamedAttrMap | undefined): tf.TensorInfo[] {
    // Concat, AddN and Pack take a list of tensors as their inputs: it stays a list
    const ids: Record<string, number> | number[] = Array.isArray(inputs)
      ? (inputs as tf.TensorInfo[]).map((t) => this.idOf(t.dataId))
      : Object.fromEntries(Object.entries(inputs).flatMap(([name, t]) => (t == null ? [] : [[name, this.idOf(t.dataId)]])))
    const { outs } = this.thread.request({ op: 'run', kernel, inputs: ids, attrs: attrs ?? {} })
    return outs!.map((o) => ({ dataId: this.track(o.id, 1), shape: o.shape, dtype: o.dtype }))
  }

  override numDataIds(): number {
    return this.refs.size
  }

  override memory(): { unreliable: boolean; reasons?: string[] } {
    return { unreliable: true, reasons: ['the tensors live on the WebGPU thread'] }
  }

  override floatPrecision(): 16 | 32 {
    return 32
  }

  override epsilon(): number {
    return 1e-7
  }

  override timerAvailable(): boolean {
    return false
  }

  override async time(f: () => void): Promise<tf.BackendTimingInfo> {
    const start = performance.now()
    f()
    return { kernelMs: performance.now() - start }
  }

  override dispose(): void {
    this.thread.close()
  }
}

/** Registers, once, a kernel under `webgpu` for each name the thread's backend has. */
export const registerKernels = (names: ReadonlyArray<string>): void => {
  for (const kernelName of names)
    if (tf.getKernel(kernelName, 'webgpu') === undefined)
      tf.registerKernel({
        kernelName,
        backendName: 'webgpu',
        kernelFunc: ({ inputs, attrs, backend }) => {
          const outs = (backend as WebGpuProxy).runKernel(kernelName, inputs, attrs)
          return outs.length === 1 ? outs[0]! : outs
        }
      })
}
