/**
 * @mtrl/rollout-queue: rollouts over many processes and machines. Episode jobs go through a
 * BullMQ queue on Redis; workers load each policy version once (safetensors bytes in Redis),
 * play their slots token-in-token-out, and the runner merges the results into the `Rollout.Result`
 * a local rollout gives.
 *
 * @since 0.1.0
 */
export * as LocalWorkers from './LocalWorkers.js'
export * as PolicyStore from './PolicyStore.js'
export * as QueueError from './QueueError.js'
export * as RedisServer from './RedisServer.js'
export * as Runner from './Runner.js'
export * as Threads from './Threads.js'
export * as Wire from './Wire.js'
export * as Worker from './Worker.js'
