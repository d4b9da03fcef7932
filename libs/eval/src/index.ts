/**
 * @mtrl/eval: evaluation of agents on held-out seeds (success rate with a Wilson interval,
 * turns, return, invalid actions, per task type) and episode transcripts.
 *
 * @since 0.1.0
 */
export * as Evaluate from './Evaluate.js'
export * as OverSeeds from './OverSeeds.js'
export * as Session from './Session.js'
export * as Summary from './Summary.js'
export * as Transcript from './Transcript.js'
