/**
 * TensorFlow.js's WebGPU AddN binds every input to one shader: more inputs than the device's
 * storage buffers per shader stage (8 unless the device asked for more) fail validation, and the
 * sum reads as zeros. The optimizer's global gradient norm sums one square per weight (dozens).
 * This AddN sums in rounds of at most that many inputs, as the Node backend's WebGPU thread does.
 */
import * as tf from '@tensorflow/tfjs'

interface Device {
  readonly device: { readonly limits: { readonly maxStorageBuffersPerShaderStage: number } }
  readonly disposeData: (dataId: tf.DataId) => boolean
}

/** Replaces the `webgpu` backend's AddN kernel with one that sums in rounds (once; a no-op without the kernel). */
export const sumInRounds = (): void => {
  const original = tf.getKernel('AddN', 'webgpu')
  if (original === undefined || (original as { rounds?: true }).rounds === true) return
  const kernelFunc: tf.KernelFunc = (args) => {
    const backend = args.backend as unknown as Device
    const most = Math.max(2, backend.device.limits.maxStorageBuffersPerShaderStage - 1)
    const made: tf.TensorInfo[] = []
    let parts = args.inputs as unknown as ReadonlyArray<tf.TensorInfo>
    while (parts.length > most) {
      const next: tf.TensorInfo[] = []
      for (let i = 0; i < parts.length; i += most) {
        const chunk = parts.slice(i, i + most)
        if (chunk.length === 1) next.push(chunk[0]!)
        else {
          const sum = original.kernelFunc({ ...args, inputs: chunk as unknown as tf.NamedTensorInfoMap }) as tf.TensorInfo
          made.push(sum)
          next.push(sum)
        }
      }
      parts = next
    }
    const out = original.kernelFunc({ ...args, inputs: parts as unknown as tf.NamedTensorInfoMap })
    for (const t of made) backend.disposeData(t.dataId)
    return out
  }
  tf.unregisterKernel('AddN', 'webgpu')
  tf.registerKernel({ ...original, kernelFunc, rounds: true } as tf.KernelConfig)
}
