/**
 * @mtrl/replicas: data-parallel gradient replicas on worker threads.
 *
 * @since 0.1.0
 */
export * as Pool from './Pool.js'
export * as Task from './Task.js'
export * as Thread from './Thread.js'
