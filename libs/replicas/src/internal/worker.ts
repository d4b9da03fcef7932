/**
 * A replica's thread: imports the task module, which builds its copy of the models, then
 * answers gradient requests (see ../Pool.ts for the protocol). Each answer is posted back, then
 * the shared signal is bumped so a caller blocked in `Atomics.wait` wakes up.
 */
import { Optimizer } from '@mtrl/optim'
import * as tf from '@tensorflow/tfjs'
import { workerData, type MessagePort } from 'node:worker_threads'
import { flatten, type Handler } from '../Task.js'
import type { Request, Response, Setup } from './protocol.js'

const setup = workerData as Setup

const answer = (port: MessagePort, response: Response, transfer: ArrayBuffer[] = []): void => {
  port.postMessage(response, transfer)
  Atomics.add(setup.signal, 0, 1)
  Atomics.notify(setup.signal, 0)
}

const importDefault = async (url: string): Promise<(data: unknown) => unknown> => {
  const module = (await import(url)) as { readonly default?: (data: unknown) => unknown }
  if (typeof module.default !== 'function') throw new Error(`${url} has no default export to call`)
  return module.default
}

const assign = (variables: ReadonlyArray<tf.Variable>, weights: Float32Array): void => {
  const total = variables.reduce((n, v) => n + v.size, 0)
  if (weights.length !== total) throw new Error(`replica: ${weights.length} weights for ${total} values`)
  let offset = 0
  for (const v of variables) {
    tf.tidy(() => v.assign(tf.tensor(weights.subarray(offset, offset + v.size), v.shape)))
    offset += v.size
  }
}

const run = async (): Promise<void> => {
  const port = setup.port
  try {
    if (setup.init !== undefined) await (await importDefault(setup.init.url))(setup.init.data)
    const handler = (await (await importDefault(setup.task.url))(setup.task.data)) as Handler
    port.on('message', (request: Request) => {
      try {
        const variables = handler.variables[request.part]
        if (variables === undefined) throw new Error(`replica: no loss part ${request.part}`)
        assign(variables, request.weights)
        const items = handler.split?.(request.part, request.payload) ?? [request.payload]
        const { grads, aux } = Optimizer.accumulatedGradients(variables, items, (payload) => handler.loss(request.part, payload))
        const flat = flatten(grads)
        tf.dispose(grads)
        answer(port, { _tag: 'Gradients', grads: flat, aux }, [flat.buffer as ArrayBuffer])
      } catch (e) {
        answer(port, { _tag: 'Failed', message: e instanceof Error ? e.message : String(e) })
      }
    })
    const sizes = Object.fromEntries(Object.entries(handler.variables).map(([part, vs]) => [part, vs.reduce((n, v) => n + v.size, 0)]))
    answer(port, { _tag: 'Ready', backend: tf.getBackend(), sizes })
  } catch (e) {
    answer(port, { _tag: 'Failed', message: e instanceof Error ? e.message : String(e) })
  }
}

void run()
