/**
 * One rollout thread seen from the calling thread: started from sources or dist (`@mtrl/replicas`'
 * `Thread.start`), asked one slice at a time, its answers awaited without blocking the event loop.
 * A thread that throws outside a slice or exits is *down*: the answer in wait, and every later
 * one, is the reason (a string), never a hang. It keeps the process alive only while a call waits.
 */
import { Thread } from '@mtrl/replicas'
import type { Worker } from 'node:worker_threads'
import type { Request, Response, Setup } from './threadProtocol.js'

export interface Handle {
  /** 1, 2, ...: the calling thread is 0. */
  readonly index: number
  /** The weights version this thread last received (0: none yet). */
  sent: number
  /** Why the thread is down (undefined while it runs). */
  readonly down: () => string | undefined
  /** Whether it has exited. */
  readonly exited: () => boolean
  /** The thread's next message (or why it is down). */
  readonly next: () => Promise<Response | string>
  /** Sends `request`, then waits for the answer. */
  readonly ask: (request: Request) => Promise<Response | string>
  readonly stop: () => Promise<void>
}

/** The worker module: from sources, or its dist/ entry. */
const workerUrl = (): string => {
  const here = import.meta.url
  return here.endsWith('.ts') ? new URL('./threadWorker.ts', here).href : new URL('./thread-worker.js', here).href
}

/** How long a stopped thread may take to close its environments. */
const closeTimeoutMs = 10_000

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref())

/** Starts rollout thread `index` from `setup`. */
export const spawn = (setup: Setup, index: number): Handle => {
  const worker: Worker = Thread.start(workerUrl(), { workerData: setup, imports: [setup.envs, setup.init?.url] })
  worker.unref()
  let down: string | undefined
  let exited = false
  let waiting: ((answer: Response | string) => void) | undefined
  const settle = (answer: Response | string): void => {
    const resolve = waiting
    waiting = undefined
    worker.unref()
    resolve?.(answer)
  }
  worker.on('message', (message: Response) => settle(message))
  worker.on('error', (e: Error) => {
    down ??= `rollout thread ${index} failed: ${e.message}`
    settle(down)
  })
  worker.on('exit', (code: number) => {
    exited = true
    down ??= `rollout thread ${index} exited with code ${code}`
    settle(down)
  })
  const next = (): Promise<Response | string> =>
    down !== undefined
      ? Promise.resolve(down)
      : new Promise((resolve) => {
          worker.ref()
          waiting = resolve
        })
  const ask = (request: Request): Promise<Response | string> => {
    const answer = next()
    if (down === undefined) worker.postMessage(request)
    return answer
  }
  return {
    index,
    sent: 0,
    down: () => down,
    exited: () => exited,
    next,
    ask,
    stop: async () => {
      // an idle thread closes its environments first (an SWE sandbox, a remote connection), for at most closeTimeoutMs
      if (down === undefined && waiting === undefined) await Promise.race([ask({ _tag: 'Close' }), delay(closeTimeoutMs)])
      down ??= `rollout thread ${index} was stopped`
      if (!exited) await worker.terminate()
      exited = true
    }
  }
}
