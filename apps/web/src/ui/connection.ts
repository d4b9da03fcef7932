/**
 * The page's end of the worker: typed requests out (dropped files' bytes transferred, not
 * copied) and typed events in, to every listener.
 */
import type { Event, Request } from '../worker/protocol.js'

export interface Connection {
  readonly send: (request: Request) => void
  readonly listen: (listener: (event: Event) => void) => void
}

/** The buffers a request can hand over instead of copying. */
const transferables = (request: Request): Transferable[] =>
  request.type === 'load' ? [...new Set(request.files.map((f) => f.bytes.buffer as ArrayBuffer))] : []

export const connect = (worker: Worker): Connection => {
  const listeners: Array<(event: Event) => void> = []
  worker.onmessage = (message: MessageEvent<Event>) => listeners.forEach((listener) => listener(message.data))
  worker.onerror = (e) => {
    e.preventDefault()
    listeners.forEach((listener) => listener({ type: 'error', message: `the worker failed: ${e.message}` }))
  }
  return {
    send: (request) => worker.postMessage(request, transferables(request)),
    listen: (listener) => listeners.push(listener)
  }
}
