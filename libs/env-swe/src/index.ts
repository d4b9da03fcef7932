/**
 * @mtrl/env-swe: SWE-Gym-style code repair. Bugs are injected by mutation operators into small
 * JavaScript projects; the agent reads, edits and runs tests; the reward is the share of tests
 * passing. Tests run for real in a locked-down child process (see `Sandbox`), under a trusted
 * harness that confines the repository's code and signs the results (see `Harness`, `Report`).
 *
 * @since 0.1.0
 */
export * as Action from './Action.js'
export * as Budget from './Budget.js'
export * as Corpus from './Corpus.js'
export * as Edit from './Edit.js'
export * as Expert from './Expert.js'
export * as Harness from './Harness.js'
export * as Mutation from './Mutation.js'
export * as Play from './Play.js'
export * as Pool from './Pool.js'
export * as Report from './Report.js'
export * as Sandbox from './Sandbox.js'
export * as Settings from './Settings.js'
export * as Suite from './Suite.js'
export * as Swe from './Swe.js'
export * as Task from './Task.js'
export * as Workspace from './Workspace.js'
export * as Registration from './Registration.js'
