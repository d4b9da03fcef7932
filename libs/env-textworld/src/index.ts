/**
 * @mtrl/env-textworld: TextWorld-style text games of tunable complexity (`wW-oO-qQ`) and the
 * `tw-simple` cooking game, in-process and deterministic, with an exact expert.
 *
 * @since 0.1.0
 */
export * as Command from './Command.js'
export * as Cooking from './Cooking.js'
export * as Diagnosis from './Diagnosis.js'
export * as FailureReport from './FailureReport.js'
export * as Expert from './Expert.js'
export * as IntermediateReward from './IntermediateReward.js'
export * as Game from './Game.js'
export * as Generator from './Generator.js'
export * as Play from './Play.js'
export * as Rules from './Rules.js'
export * as Settings from './Settings.js'
export * as Text from './Text.js'
export * as TextWorld from './TextWorld.js'
export * as Registration from './Registration.js'
