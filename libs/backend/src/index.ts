/**
 * @mtrl/backend: selects the TensorFlow.js compute backend.
 *
 * @since 0.1.0
 */
export * as Backend from './Backend.js'
