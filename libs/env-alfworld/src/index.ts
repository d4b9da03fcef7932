/**
 * @mtrl/env-alfworld: ALFWorld-style household tasks in text, in-process and deterministic.
 *
 * @since 0.1.0
 */
export * as AlfWorld from './AlfWorld.js'
export * as Command from './Command.js'
export * as Expert from './Expert.js'
export * as Game from './Game.js'
export * as Play from './Play.js'
export * as Scene from './Scene.js'
export * as Split from './Split.js'
export * as Task from './Task.js'
export * as Registration from './Registration.js'
