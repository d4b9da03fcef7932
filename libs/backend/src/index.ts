/**
 * @mtrl/backend: selects the TensorFlow.js compute backend, and tests it.
 *
 * @since 0.1.0
 */
export * as Backend from './Backend.js'
export * as Host from './Host.js'
export * as SelfTest from './SelfTest.js'
export * as ThreadInit from './ThreadInit.js'
export * as WebGpu from './WebGpu.js'
