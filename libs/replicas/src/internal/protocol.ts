/** The messages between the calling thread and a replica's thread (../Pool.ts). */
import type { MessagePort } from 'node:worker_threads'

/** See `Pool.Init`. */
export interface Init {
  readonly url: string
  readonly data?: unknown
}

/** See `Pool.Task`. */
export interface Task {
  readonly url: string
  readonly data: unknown
}

/** What a replica starts from (its `workerData`). */
export interface Setup {
  /** A module the thread imports first; its default export gets `data` (e.g. to activate a backend). */
  readonly init: Init | undefined
  /** The module that builds the replica's models and losses; its default export gets `data`. */
  readonly task: Task
  readonly port: MessagePort
  /** Int32Array(1) over a SharedArrayBuffer, bumped after every message the replica posts. */
  readonly signal: Int32Array
}

/** The gradient of loss `part` at `weights` (that part's variables, flat) on `payload`. */
export interface Request {
  readonly part: string
  readonly weights: Float32Array
  readonly payload: unknown
}

export type Response =
  | { readonly _tag: 'Ready'; readonly backend: string; readonly sizes: Readonly<Record<string, number>> }
  | { readonly _tag: 'Gradients'; readonly grads: Float32Array; readonly aux: Readonly<Record<string, number>> }
  | { readonly _tag: 'Failed'; readonly message: string }
