/**
 * @mtrl/recipe: a training pipeline as JSON. `Recipe` decodes and checks a whole recipe (stages
 * of SFT and RL, each with its environment, then an evaluation) with the libraries' own codecs and
 * fills their defaults; `EnvConfig` turns an environment entry into its library's source; `Model`
 * builds the agent a recipe names; `Pipeline` runs a recipe end to end (or resumes it) into a run
 * folder of @mtrl/experiment.
 *
 * @since 0.1.0
 */
export * as Ablate from './Ablate.js'
export * as AgentRl from './AgentRl.js'
export * as EnvConfig from './EnvConfig.js'
export * as Evaluation from './Evaluation.js'
export * as Launch from './Launch.js'
export * as Model from './Model.js'
export * as Pipeline from './Pipeline.js'
export * as Probe from './Probe.js'
export * as Recipe from './Recipe.js'
export * as RemoteEvaluation from './RemoteEvaluation.js'
export * as RunError from './RunError.js'
