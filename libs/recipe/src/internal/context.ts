/**
 * What the stages of a run share: the run's context (recipe, folder, environments, progress,
 * the people watching), and the options a stage derives from the recipe.
 */
import type { Play } from '@mtrl/agent-rl'
import type { Env, Sampler } from '@mtrl/core'
import type { Progress, RunDir } from '@mtrl/experiment'
import type { Agent } from '@mtrl/policy'
import { Rollout, type Generator } from '@mtrl/rollout'
import type { Runner } from '@mtrl/rollout-queue'
import type { Replicas } from '@mtrl/trainer-sft'
import type { Resolved, RolloutSettings } from '../Recipe.js'
import type { Looks } from './looks.js'

/** A progress bar: `update(done, status)`, then `stop()`. */
export interface Bar {
  readonly update: (done: number, status: string) => void
  readonly stop: () => void
}

/** Makes a bar of `total` steps labelled `label`. */
export type MakeBar = (label: string, total: number) => Bar

/** Where a run's progress goes: lines and bars for people (the library writes nothing itself). */
export interface Reporter {
  /** A line of progress for people. */
  readonly line: (text: string) => void
  /** A progress bar (ETA on a terminal, plain lines otherwise). */
  readonly bar?: MakeBar
  /** On a terminal: bars replace the per-iteration lines. */
  readonly interactive?: boolean
  /** Notes for people before the work starts (stderr for a CLI): the sandbox an SWE environment uses. */
  readonly note?: (text: string) => void
  /**
   * Each SFT or pretraining step's metrics as it happens (`kind: 'sft'`), for a live watcher such
   * as the browser page; the run folder gets them at the stage's end.
   */
  readonly step?: (record: Readonly<Record<string, unknown>>) => void
}

export const noBar: MakeBar = () => ({ update: () => undefined, stop: () => undefined })

/** Set by Ctrl-C: the run stops at the next checkpoint. */
export interface StopSignal {
  readonly requested: () => boolean
}

export const never: StopSignal = { requested: () => false }

/** A run in progress: what it runs, where it writes, and how far it is. */
export interface Context {
  readonly recipe: Resolved
  readonly run: RunDir.RunDir
  readonly reporter: Reporter
  readonly resume: boolean
  readonly stop: StopSignal
  /** Each stage's environment source (none for a pretrain stage, which plays a mixture). */
  readonly stageSources: ReadonlyArray<Env.EnvSource | undefined>
  readonly evalSources: ReadonlyArray<Env.EnvSource>
  /** When set, RL episodes are played by the queue's workers (the same trajectories for the same seed). */
  readonly queue: Runner.Runner | undefined
  /** What each replica thread (SFT and RL updates) imports first (the app's backend); none: replicas start without. */
  readonly replicaInit: Replicas.Init | undefined
  /** Agents written as code given in code (by the name an RL stage's `agent` gives), before modules of that path. */
  readonly agents: Readonly<Record<string, Play.Agent>>
  /** Where the run's test looks are recorded (none: not recorded, as on the browser page). */
  readonly looks: Looks | undefined
  /** The agent being trained (a resumed stage or a new critic replaces it). */
  agent: Agent.Agent
  progress: Progress.Progress
}

/** The rollout options of a stage: library defaults < recipe-wide < stage; maxTurns defaults to the env's budget. */
export const rolloutOptions = (source: Env.EnvSource, recipeWide: RolloutSettings | undefined, stage: RolloutSettings | undefined): Rollout.Options => ({
  ...Rollout.defaultOptions,
  maxTurns: source.maxTurns,
  ...recipeWide,
  ...stage
})

/** A generator (sampler session + template) for rollouts with the agent. */
export const generatorFor = (agent: Agent.Agent, session: Sampler.SamplerSession): Generator.Generator => ({
  session,
  template: agent.template,
  tokenizer: agent.tokenizer,
  contextLength: agent.contextLength
})

export const pct = (x: number): string => `${(100 * x).toFixed(1)}%`
