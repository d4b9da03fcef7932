/** The messages between the calling thread and a rollout thread (../Threads.ts, threadWorker.ts). */
import type { EnvError } from '@mtrl/core'
import type { Policy } from '@mtrl/policy'
import type { ModelRecord } from '../PolicyStore.js'
import type * as Wire from '../Wire.js'
import type { Slice } from './slice.js'

/** A module the thread imports, whose default export it calls with `data`. */
export interface ModuleRef {
  readonly url: string
  readonly data?: unknown
}

/** What a rollout thread starts from (its `workerData`). */
export interface Setup {
  /** Imported first (the app's backend, `@mtrl/backend`'s `ThreadInit`). */
  readonly init: ModuleRef | undefined
  /** Its default export decodes `spec` to an environment source. */
  readonly envs: string
  readonly spec: unknown
  readonly record: ModelRecord
  /** Its name in results (`thread 1`, ...). */
  readonly name: string
}

/** Host weights by tensor name (`Policy.toHost`), as entries. */
export type Weights = ReadonlyArray<readonly [string, Policy.HostTensor]>

/** Play a slice (`weights` when they changed since the thread's last slice, always with its first); or close the environments before the thread is stopped. */
export type Request = { readonly _tag: 'Play'; readonly slice: Slice; readonly weights: Weights | undefined } | { readonly _tag: 'Close' }

export type Response =
  | { readonly _tag: 'Ready'; readonly backend: string }
  | { readonly _tag: 'Played'; readonly result: Wire.JobResult }
  | { readonly _tag: 'EnvFailed'; readonly error: EnvError.EnvError }
  | { readonly _tag: 'Failed'; readonly message: string }
  | { readonly _tag: 'Closed' }
