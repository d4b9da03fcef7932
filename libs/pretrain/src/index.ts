/**
 * @mtrl/pretrain: pretraining transcripts for a base model that knows the games' language but
 * not their tasks: games of TextWorld and ALFWorld played without a plan by a behaviour policy
 * (uniform over admissible commands, a share of invalid ones), on seeds of their own, rendered
 * in the agents' chat layout.
 *
 * @since 0.1.0
 */
export * as Behaviour from './Behaviour.js'
export * as Corpus from './Corpus.js'
export * as Mixture from './Mixture.js'
export * as Render from './Render.js'
export * as Seeds from './Seeds.js'
export * as Transcript from './Transcript.js'
