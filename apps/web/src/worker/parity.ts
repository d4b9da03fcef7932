/**
 * The page's check of its backend: the parity checks of training and sampling (logits and
 * log-probs, policy-loss gradients and an Adam step, KV-cached decoding against the full forward
 * pass; `BackendParity` of @mtrl/trainer-rl, the same the Node suite runs on WebGPU) on the cpu
 * backend's reference kernels, then on the worker's backend from the same seeds, each measure
 * against its tolerance, and the tensors the backend's runs left behind.
 */
import { BackendParity } from '@mtrl/trainer-rl'
import * as tf from '@tensorflow/tfjs'
import type { ParityReport } from './protocol.js'

/** Runs every check on cpu, then on `backend` (the active one, active again when it returns). */
export const check = async (backend: string): Promise<ParityReport> => {
  const started = performance.now()
  const measures: BackendParity.Measure[] = []
  let leaked = 0
  try {
    for (const name of BackendParity.names) {
      await tf.setBackend('cpu')
      const reference = BackendParity.run(name)
      await tf.setBackend(backend)
      const before = tf.memory().numTensors
      const outputs = BackendParity.run(name)
      leaked += tf.memory().numTensors - before
      measures.push(...BackendParity.compare(name, reference)(outputs))
    }
  } finally {
    await tf.setBackend(backend)
  }
  return { backend, measures, leaked, seconds: (performance.now() - started) / 1000 }
}
