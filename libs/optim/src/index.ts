/**
 * @mtrl/optim: the optimizer step both trainers take (Adam with global-norm clipping and an
 * exactly restorable state) and learning-rate schedules.
 *
 * @since 0.1.0
 */
export * as Backprop from './Backprop.js'
export * as Optimizer from './Optimizer.js'
export * as Schedule from './Schedule.js'
