/**
 * A replica's thread: a copy of the policy on its own TensorFlow.js backend that answers
 * gradient requests (see ../Replicas.ts for the protocol). Messages arrive on the port; each
 * answer is posted back, then the shared signal is bumped so a main thread blocked in
 * `Atomics.wait` wakes up.
 */
import { Policy } from '@mtrl/policy'
import * as tf from '@tensorflow/tfjs'
import { parentPort, workerData, type MessagePort } from 'node:worker_threads'
import { Optimizer } from '@mtrl/optim'
import type { Request, Response, Setup } from './replicaProtocol.js'
import { weightedNll } from './weightedNll.js'

const setup = workerData as Setup

const answer = (port: MessagePort, response: Response, transfer: ArrayBuffer[] = []): void => {
  port.postMessage(response, transfer)
  Atomics.add(setup.signal, 0, 1)
  Atomics.notify(setup.signal, 0)
}

const run = async (): Promise<void> => {
  const port = setup.port
  try {
    if (setup.init !== undefined) {
      const init = (await import(setup.init.url)) as { readonly default?: (data: unknown) => unknown }
      if (typeof init.default !== 'function') throw new Error(`${setup.init.url} has no default export to call`)
      await init.default(setup.init.data)
    }
    const policy = Policy.fromHost(setup.config, new Map(setup.weights), setup.lora === undefined ? {} : { lora: setup.lora })
    const variables = setup.trainable.map((name) => {
      const v = policy.variables[name]
      if (v === undefined) throw new Error(`replica: no variable ${name}`)
      return v
    })
    port.on('message', (request: Request) => {
      try {
        let offset = 0
        for (const v of variables) {
          const size = v.size
          tf.tidy(() => v.assign(tf.tensor(request.weights.subarray(offset, offset + size), v.shape)))
          offset += size
        }
        const { grads, aux } = Optimizer.gradients(variables, () => weightedNll(policy, request.shard, request.coefs))
        const flat = new Float32Array(offset)
        let at = 0
        for (const g of grads) {
          flat.set(g.dataSync() as Float32Array, at)
          at += g.size
        }
        tf.dispose(grads)
        answer(port, { _tag: 'Gradients', grads: flat, sums: request.shard.masks.map((_, k) => aux[`s${k}`]!) }, [flat.buffer as ArrayBuffer])
      } catch (e) {
        answer(port, { _tag: 'Failed', message: e instanceof Error ? e.message : String(e) })
      }
    })
    answer(port, { _tag: 'Ready', backend: tf.getBackend() })
  } catch (e) {
    answer(port, { _tag: 'Failed', message: e instanceof Error ? e.message : String(e) })
  }
}

void run()
void parentPort
