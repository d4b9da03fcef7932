/**
 * Data-parallel replicas: worker threads that each hold a copy of the trained models on their
 * own TensorFlow.js backend and compute the gradient of a shard of every batch, as PyTorch's
 * DistributedDataParallel does across processes. The calling thread is replica 0: it sends the
 * current weights and a shard to each worker, differentiates its own shard, then blocks until
 * the workers' gradients arrive and adds them up. Only the calling thread keeps optimizers, so
 * every step is one update of the summed gradient.
 *
 * What it is for: the wasm backend computes on one thread under Node (its threaded build is
 * off for Node), so a second core trains only as a second replica.
 *
 * What the replicas compute is a {@link Task.Task} of the caller's: SFT's token NLL, RL's
 * policy and value losses.
 *
 * @since 0.1.0
 */
import { Optimizer } from '@mtrl/optim'
import * as tf from '@tensorflow/tfjs'
import { MessageChannel, receiveMessageOnPort, type MessagePort, type Worker } from 'node:worker_threads'
import type { Init, Request, Response, Setup, Task } from './internal/protocol.js'
import { flatten } from './Task.js'
import * as Thread from './Thread.js'

/**
 * How a replica's thread prepares itself before it builds its models: it imports the module at
 * `url` (a `file:` URL; TypeScript works when running from sources) and awaits its default
 * export called with `data`. Libraries never choose a TensorFlow.js backend, so this is where
 * the application activates the same backend as its own thread; without it the thread uses
 * TensorFlow.js's default (`cpu` under Node).
 *
 * @category models
 * @since 0.1.0
 */
export type { Init } from './internal/protocol.js'

interface Replica {
  readonly worker: Worker
  readonly port: MessagePort
  readonly signal: Int32Array
}

/**
 * Worker replicas (the calling thread is one more). `dispose` stops them.
 *
 * @category models
 * @since 0.1.0
 */
export interface Pool {
  readonly _tag: 'Pool'
  /** Worker threads (0: none; the caller trains alone). */
  readonly size: number
  /** The TensorFlow.js backend each worker computes on. */
  readonly backends: ReadonlyArray<string>
  /** How many values each loss part's variables hold, as the workers built them. */
  readonly sizes: Readonly<Record<string, number>>
  readonly dispose: () => Promise<void>
}

interface Internal extends Pool {
  readonly replicas: ReadonlyArray<Replica>
}

/** How long a blocked caller waits for a replica's answer before giving up. */
const answerTimeoutMs = 10 * 60 * 1000

const spawn = (setup: Setup): Worker => {
  const here = import.meta.url
  const target = here.endsWith('.ts') ? new URL('./internal/worker.ts', here).href : new URL('./worker.js', here).href
  // TypeScript anywhere (this library, the task or the init run from sources) needs tsx in the thread
  return Thread.start(target, { workerData: setup, transferList: [setup.port as unknown as MessagePort], imports: [setup.task.url, setup.init?.url] })
}

const takeMessage = (replica: Replica): Response | undefined => receiveMessageOnPort(replica.port)?.message as Response | undefined

/** Blocks the calling thread until `replica` answers. */
const awaitAnswer = (replica: Replica): Response => {
  for (;;) {
    const seen = Atomics.load(replica.signal, 0)
    const message = takeMessage(replica)
    if (message !== undefined) return message
    if (Atomics.wait(replica.signal, 0, seen, answerTimeoutMs) === 'timed-out')
      throw new Error(`Replicas: no answer from a replica in ${answerTimeoutMs / 1000} s`)
  }
}

type Started = { readonly backend: string; readonly sizes: Readonly<Record<string, number>> }

/** Waits (without blocking the event loop) for a replica's first message, or its failure to start. */
const ready = (replica: Replica): Promise<Started> =>
  new Promise((resolve, reject) => {
    let settled = false
    const finish = (error: Error | undefined, started?: Started): void => {
      if (settled) return
      settled = true
      clearInterval(timer)
      replica.worker.off('error', onError)
      replica.worker.off('exit', onExit)
      if (error === undefined) resolve(started!)
      else reject(error)
    }
    const answered = (message: Response): void =>
      message._tag === 'Ready'
        ? finish(undefined, { backend: message.backend, sizes: message.sizes })
        : finish(new Error(`Replicas: a replica failed to start: ${message._tag === 'Failed' ? message.message : message._tag}`))
    const onError = (e: Error): void => finish(new Error(`Replicas: a replica failed to start: ${e.message}`))
    // a replica whose start failed answers why, then exits: its answer, when there is one, wins over the exit
    const onExit = (code: number): void => {
      const message = takeMessage(replica)
      if (message !== undefined) answered(message)
      else finish(new Error(`Replicas: a replica exited with code ${code} while starting`))
    }
    replica.worker.on('error', onError)
    replica.worker.on('exit', onExit)
    const timer = setInterval(() => {
      const message = takeMessage(replica)
      if (message !== undefined) answered(message)
    }, 5)
  })

/**
 * Starts `workers` replicas, each thread prepared by `init` (see {@link Init}), then built by
 * `task` (see `Task`). `workers` 0 gives an empty pool.
 *
 * @category constructors
 * @since 0.1.0
 */
export const start = async (task: Task, workers: number, init?: Init): Promise<Pool> => {
  if (!Number.isInteger(workers) || workers < 0) throw new Error(`Replicas.start: workers must be a non-negative integer, got ${workers}`)
  const replicas: Replica[] = []
  const stopAll = (): Promise<void> => Promise.all(replicas.map((r) => r.worker.terminate().then(() => r.port.close()))).then(() => undefined)
  try {
    for (let i = 0; i < workers; i++) {
      const channel = new MessageChannel()
      const signal = new Int32Array(new SharedArrayBuffer(4))
      const worker = spawn({ init, task, port: channel.port2, signal })
      worker.unref()
      replicas.push({ worker, port: channel.port1, signal })
    }
    const started = await Promise.all(replicas.map(ready))
    const pool: Internal = {
      _tag: 'Pool',
      size: workers,
      backends: started.map((s) => s.backend),
      sizes: started[0]?.sizes ?? {},
      replicas,
      dispose: stopAll
    }
    return pool
  } catch (e) {
    await stopAll()
    throw e
  }
}

/**
 * A worker's answer: the gradient (flat, in the part's variable order) and its auxiliary scalars.
 *
 * @category models
 * @since 0.1.0
 */
export interface Answer {
  readonly grads: Float32Array
  readonly aux: Readonly<Record<string, number>>
}

/**
 * Sends one payload to each of the first `payloads.length` workers (at most `size`) with the
 * weights of loss `part` to take its gradient at, and returns a function that blocks until all
 * have answered. Compute the caller's own shard in between.
 *
 * @category combinators
 * @since 0.1.0
 */
export const dispatch = (pool: Pool, part: string, weights: Float32Array, payloads: ReadonlyArray<unknown>): (() => ReadonlyArray<Answer>) => {
  const { replicas } = pool as Internal
  if (payloads.length > replicas.length) throw new Error(`Replicas.dispatch: ${payloads.length} shards for ${replicas.length} workers`)
  payloads.forEach((payload, i) => {
    const request: Request = { part, weights, payload }
    replicas[i]!.port.postMessage(request)
  })
  return () =>
    payloads.map((_, i) => {
      const answer = awaitAnswer(replicas[i]!)
      if (answer._tag === 'Failed') throw new Error(`Replicas: replica ${i + 1} failed: ${answer.message}`)
      if (answer._tag !== 'Gradients') throw new Error(`Replicas: unexpected ${answer._tag} from replica ${i + 1}`)
      return answer
    })
}

/**
 * The gradient of a batch's loss part with respect to `variables`, its shards spread over the
 * caller and the workers: `payloads[0]` is the caller's (its loss from `local`), the rest go to
 * workers 1, 2, ... Returns the summed gradients (the caller owns them) and the summed
 * auxiliary scalars. With one payload it is `Optimizer.gradients` of `local(payloads[0])`.
 * `split` cuts the caller's payload into micro-batches whose losses add up to its loss (one
 * backward pass each, gradients summed: `Optimizer.accumulatedGradients`); workers split theirs
 * with their task's `Handler.split`.
 *
 * @category combinators
 * @since 0.1.0
 */
export const gradients = <P>(
  pool: Pool | undefined,
  part: string,
  variables: ReadonlyArray<tf.Variable>,
  payloads: ReadonlyArray<P>,
  local: (payload: P) => { readonly loss: tf.Scalar; readonly aux?: Readonly<Record<string, tf.Scalar>> },
  split?: (payload: P) => ReadonlyArray<P>
): { readonly grads: tf.Tensor[]; readonly aux: Readonly<Record<string, number>> } => {
  if (payloads.length === 0) throw new Error('Replicas.gradients: no shard')
  const remote = payloads.slice(1)
  if (remote.length > 0 && (pool === undefined || remote.length > pool.size))
    throw new Error(`Replicas.gradients: ${payloads.length} shards for ${(pool?.size ?? 0) + 1} replicas`)
  const answers = remote.length === 0 || pool === undefined ? () => [] : dispatch(pool, part, flatten(variables), remote)
  const mine = Optimizer.accumulatedGradients(variables, split === undefined ? [payloads[0]!] : split(payloads[0]!), local)
  let others: ReadonlyArray<Answer>
  try {
    others = answers()
  } catch (e) {
    tf.dispose(mine.grads)
    throw e
  }
  if (others.length === 0) return { grads: mine.grads, aux: mine.aux }
  const sizes = variables.map((v) => v.size)
  const offsets = sizes.map((_, i) => sizes.slice(0, i).reduce((a, b) => a + b, 0))
  const grads = tf.tidy(() =>
    mine.grads.map((g, i) => tf.addN([g, ...others.map((a) => tf.tensor(a.grads.subarray(offsets[i]!, offsets[i]! + sizes[i]!), g.shape))]))
  )
  tf.dispose(mine.grads)
  const aux = Object.fromEntries(Object.entries(mine.aux).map(([k, v]) => [k, others.reduce((n, a) => n + (a.aux[k] ?? 0), v)]))
  return { grads, aux }
}

/**
 * Splits rows (by their lengths) into at most `parts` non-empty groups of similar token counts:
 * longest first, each to the group with the fewest tokens so far. Returns row indices.
 *
 * @category combinators
 * @since 0.1.0
 */
export const split = (lengths: ReadonlyArray<number>, parts: number): number[][] => {
  const groups = Array.from({ length: Math.min(parts, lengths.length) }, () => ({ rows: [] as number[], tokens: 0 }))
  const order = lengths.map((n, i) => [n, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1])
  for (const [n, i] of order) {
    const g = groups.reduce((best, x) => (x.tokens < best.tokens ? x : best))
    g.rows.push(i)
    g.tokens += n
  }
  return groups.map((g) => g.rows.sort((a, b) => a - b))
}
