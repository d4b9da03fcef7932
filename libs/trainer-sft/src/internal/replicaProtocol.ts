/** The messages between the main thread and a replica's thread (../Replicas.ts). */
import type { Lora, ModelConfig, Policy } from '@mtrl/policy'
import type { MessagePort } from 'node:worker_threads'
import type { Shard } from './weightedNll.js'

/** See `Replicas.Init`. */
export interface Init {
  readonly url: string
  readonly data?: unknown
}

/** What a replica starts from (its `workerData`). */
export interface Setup {
  /** A module the thread imports first; its default export gets `data` (e.g. to activate a backend). */
  readonly init: Init | undefined
  readonly config: ModelConfig.ModelConfig
  readonly lora: Lora.Options | undefined
  /** Every weight (base and adapters), by Hugging Face name. */
  readonly weights: ReadonlyArray<readonly [string, Policy.HostTensor]>
  /** The names of the variables it differentiates, in the order of the flat arrays. */
  readonly trainable: ReadonlyArray<string>
  readonly port: MessagePort
  /** Int32Array(1) over a SharedArrayBuffer, bumped after every message the replica posts. */
  readonly signal: Int32Array
}

/** The gradient of the weighted NLL of `shard` at `weights` (the trainable variables, flat). */
export interface Request {
  readonly weights: Float32Array
  readonly shard: Shard
  readonly coefs: ReadonlyArray<number>
}

export type Response =
  | { readonly _tag: 'Ready'; readonly backend: string }
  | { readonly _tag: 'Gradients'; readonly grads: Float32Array; readonly sums: ReadonlyArray<number> }
  | { readonly _tag: 'Failed'; readonly message: string }
