/**
 * Data-parallel replicas of a policy: worker threads that each hold a copy of the model on
 * their own TensorFlow.js backend and compute the gradient of a shard of every batch, as
 * PyTorch's DistributedDataParallel does across processes. The calling thread is replica 0: it
 * sends the current weights and a shard to each worker, differentiates its own shard, then
 * blocks until the workers' gradients arrive and adds them up. Only the calling thread keeps
 * an optimizer, so every step is one Adam update of the summed gradient.
 *
 * What it is for: the wasm backend computes on one thread under Node (threads inside one wasm
 * instance gave +14%, docs REFERENCE), so a second core trains only as a second replica: two
 * replicas at 2 rows each train about twice the tokens per second of one at 4 rows.
 *
 * The shard losses are scaled by the whole batch's token counts, so the summed gradient is the
 * batch's gradient (up to float summation order: results differ from one replica in the last
 * bits, and are deterministic for a given number of replicas).
 *
 * @since 0.1.0
 */
import { Policy } from '@mtrl/policy'
import * as tf from '@tensorflow/tfjs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads'
import type { Init, Request, Response, Setup } from './internal/replicaProtocol.js'
import type { Shard } from './internal/weightedNll.js'

export type { Shard } from './internal/weightedNll.js'

/**
 * How a replica's thread prepares itself before it builds the model: it imports the module at
 * `url` (a `file:` URL; TypeScript works when running from sources) and awaits its default
 * export called with `data`. Libraries never choose a TensorFlow.js backend, so this is where
 * the application activates the same backend as its own thread; without it the thread uses
 * TensorFlow.js's default (`cpu` under Node).
 *
 * @category models
 * @since 0.1.0
 */
export type { Init } from './internal/replicaProtocol.js'

interface Replica {
  readonly worker: Worker
  readonly port: MessagePort
  readonly signal: Int32Array
}

/**
 * Worker replicas of one policy (the calling thread is one more). `dispose` stops them.
 *
 * @category models
 * @since 0.1.0
 */
export interface Pool {
  readonly _tag: 'Replicas'
  /** Worker threads (0: none; the caller trains alone). */
  readonly size: number
  /** The TensorFlow.js backend each worker computes on. */
  readonly backends: ReadonlyArray<string>
  /** The variables they differentiate, in flat-array order (the policy's trainable ones). */
  readonly variables: ReadonlyArray<tf.Variable>
  readonly dispose: () => Promise<void>
}

interface Internal extends Pool {
  readonly replicas: ReadonlyArray<Replica>
}

/** How long a blocked caller waits for a replica's answer before giving up. */
const answerTimeoutMs = 10 * 60 * 1000

/** Source-mode bootstrap: the worker registers tsx and the `@mtrl/source` condition, then loads the TypeScript worker. */
const sourceBootstrap = (target: string, tsxApi: string): string => {
  const hook =
    'data:text/javascript,' +
    encodeURIComponent(
      "export async function resolve(s, c, n) { return n(s, { ...c, conditions: c.conditions.includes('@mtrl/source') ? c.conditions : ['@mtrl/source', ...c.conditions] }) }"
    )
  return `const { register } = require('node:module');
(async () => {
  register(${JSON.stringify(hook)});
  const tsx = await import(${JSON.stringify(tsxApi)});
  tsx.register();
  await import(${JSON.stringify(target)});
})().catch((e) => { process.nextTick(() => { throw e }) });`
}

const spawn = (setup: Setup): Worker => {
  const here = import.meta.url
  const transfer = [setup.port as unknown as MessagePort]
  // a worker inherits the process's flags; --input-type (from `node --input-type=module -e`) breaks file workers
  const execArgv = process.execArgv.filter((flag) => !flag.startsWith('--input-type'))
  if (here.endsWith('.ts')) {
    const target = new URL('./internal/replicaWorker.ts', here).href
    // tsx's ES-module API, found from this file (require.resolve would give its CommonJS entry)
    const tsxRoot = dirname(createRequire(here).resolve('tsx/package.json'))
    const tsxApi = pathToFileURL(join(tsxRoot, 'dist', 'esm', 'api', 'index.mjs')).href
    return new Worker(sourceBootstrap(target, tsxApi), { eval: true, workerData: setup, transferList: transfer, execArgv })
  }
  return new Worker(new URL('./replica-worker.js', here), { workerData: setup, transferList: transfer, execArgv })
}

const takeMessage = (replica: Replica): Response | undefined => receiveMessageOnPort(replica.port)?.message as Response | undefined

/** Blocks the calling thread until `replica` answers. */
const awaitAnswer = (replica: Replica): Response => {
  for (;;) {
    const seen = Atomics.load(replica.signal, 0)
    const message = takeMessage(replica)
    if (message !== undefined) return message
    if (Atomics.wait(replica.signal, 0, seen, answerTimeoutMs) === 'timed-out') throw new Error(`Replicas: no answer from a replica in ${answerTimeoutMs / 1000} s`)
  }
}

/** Waits (without blocking the event loop) for a replica's first message, or its failure to start. */
const ready = (replica: Replica): Promise<string> =>
  new Promise((resolve, reject) => {
    let settled = false
    const finish = (error: Error | undefined, backend = ''): void => {
      if (settled) return
      settled = true
      clearInterval(timer)
      replica.worker.off('error', onError)
      replica.worker.off('exit', onExit)
      if (error === undefined) resolve(backend)
      else reject(error)
    }
    const answered = (message: Response): void =>
      message._tag === 'Ready' ? finish(undefined, message.backend) : finish(new Error(`Replicas: a replica failed to start: ${message._tag === 'Failed' ? message.message : message._tag}`))
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
 * Starts `workers` replicas of `policy` (its current weights; LoRA-aware), each thread prepared
 * by `init` (see {@link Init}). `workers` 0 gives an empty pool.
 *
 * @example
 * import { Replicas, Sft } from '@mtrl/trainer-sft'
 * declare const policy: import('@mtrl/policy').Policy.Policy
 * declare const demos: ReadonlyArray<import('@mtrl/core').Trajectory.Trajectory>
 * const pool = await Replicas.start(policy, 1, { url: new URL('./useWasm.js', import.meta.url).href })
 * try {
 *   Sft.train({ ...Sft.defaultOptions, batchSize: 4 })(policy)(demos, {}, pool)
 * } finally {
 *   await pool.dispose()
 * }
 *
 * @category constructors
 * @since 0.1.0
 */
export const start = async (policy: Policy.Policy, workers: number, init?: Init): Promise<Pool> => {
  if (!Number.isInteger(workers) || workers < 0) throw new Error(`Replicas.start: workers must be a non-negative integer, got ${workers}`)
  const trainable = new Set(Policy.trainableVariables(policy))
  const names = Object.entries(policy.variables)
    .filter(([, v]) => trainable.has(v))
    .map(([name]) => name)
  const variables = names.map((name) => policy.variables[name]!)
  const weights = workers === 0 ? [] : [...Policy.toHost(policy.variables).entries()]
  const replicas: Replica[] = []
  const stopAll = (): Promise<void> => Promise.all(replicas.map((r) => r.worker.terminate().then(() => r.port.close()))).then(() => undefined)
  try {
    for (let i = 0; i < workers; i++) {
      const channel = new MessageChannel()
      const signal = new Int32Array(new SharedArrayBuffer(4))
      const setup: Setup = {
        init,
        config: policy.config,
        lora: policy.lora,
        weights,
        trainable: names,
        port: channel.port2,
        signal
      }
      const worker = spawn(setup)
      worker.unref()
      replicas.push({ worker, port: channel.port1, signal })
    }
    const backends = await Promise.all(replicas.map(ready))
    const pool: Internal = { _tag: 'Replicas', size: workers, backends, variables, replicas, dispose: stopAll }
    return pool
  } catch (e) {
    await stopAll()
    throw e
  }
}

/**
 * The trainable variables' current values, flat, in the pool's order.
 *
 * @category destructors
 * @since 0.1.0
 */
export const flatWeights = (pool: Pool): Float32Array => {
  const out = new Float32Array(pool.variables.reduce((n, v) => n + v.size, 0))
  let at = 0
  for (const v of pool.variables) {
    out.set(v.dataSync() as Float32Array, at)
    at += v.size
  }
  return out
}

/**
 * A worker's answer: the gradient (flat, the pool's variable order) and each mask's
 * log-likelihood sum.
 *
 * @category models
 * @since 0.1.0
 */
export interface Answer {
  readonly grads: Float32Array
  readonly sums: ReadonlyArray<number>
}

/**
 * Sends one shard to each of the first `shards.length` workers (at most `size`) with the
 * weights to take their gradient at, and returns a function that blocks until all have
 * answered. Compute the caller's own shard in between.
 *
 * @category combinators
 * @since 0.1.0
 */
export const dispatch = (pool: Pool, weights: Float32Array, shards: ReadonlyArray<Shard>, coefs: ReadonlyArray<number>): (() => ReadonlyArray<Answer>) => {
  const { replicas } = pool as Internal
  if (shards.length > replicas.length) throw new Error(`Replicas.dispatch: ${shards.length} shards for ${replicas.length} workers`)
  shards.forEach((shard, i) => {
    const request: Request = { weights, shard, coefs }
    replicas[i]!.port.postMessage(request)
  })
  return () =>
    shards.map((_, i) => {
      const answer = awaitAnswer(replicas[i]!)
      if (answer._tag === 'Failed') throw new Error(`Replicas: replica ${i + 1} failed: ${answer.message}`)
      if (answer._tag !== 'Gradients') throw new Error(`Replicas: unexpected ${answer._tag} from replica ${i + 1}`)
      return answer
    })
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
