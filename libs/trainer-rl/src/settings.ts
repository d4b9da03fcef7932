/**
 * @mtrl/trainer-rl/settings: the RL trainer's settings without its maths, a tensor-free entry
 * point (nothing here imports TensorFlow.js): the algorithms and what each needs
 * (`Algorithm.registry`: critic, groups, estimator, policy loss), the aggregation modes, the KL
 * term's settings, the importance-sampling and replay settings. The browser page and other
 * front ends read their lists from here.
 *
 * @since 0.7.0
 */
export * as AggregationMode from './AggregationMode.js'
export * as Algorithm from './Algorithm.js'
export * as ImportanceSampling from './ImportanceSampling.js'
export * as KlController from './KlController.js'
export * as KlSettings from './KlSettings.js'
export * as Replay from './Replay.js'
