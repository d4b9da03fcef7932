/**
 * Where the memory policy (`Options.memory`) shows in a rollout: what enters a slot's context
 * when an episode starts, when a turn starts and after a step, and what a finished episode's
 * training samples are. `full` memory keeps one growing sequence per episode
 * (`fullHistory.ts`); `window(K)` renders a fresh prompt at every turn and makes every turn its
 * own sample (`memoryWindow.ts`). The lockstep loop calls the same hooks in both.
 */
import type { Env, Sampler, Tokenizer, Trajectory } from '@mtrl/core'
import type { ContextQueue } from './contextQueue.js'
import type { OpenEpisode } from './openEpisode.js'

/** What a layout needs to put tokens in a slot's context. */
export interface LayoutContext {
  readonly session: Sampler.SamplerSession
  readonly template: Tokenizer.ChatTemplate
  /** The system message (`Layout.system`). */
  readonly system: string
  readonly maxNewTokens: number
  readonly contextLength: number
  readonly queue: ContextQueue
}

/**
 * The hooks of a memory policy. The hooks that return a boolean return false when the tokens
 * the episode needs (plus room for a reply) do not fit the context: the episode then ends with
 * `contextLimit`.
 */
export interface MemoryLayout {
  /** Prepares the slot's context for a new episode. */
  readonly startEpisode: (episode: OpenEpisode) => boolean
  /** Prepares the slot's context for the episode's next turn. */
  readonly startTurn: (episode: OpenEpisode) => boolean
  /** The turn index an action segment is recorded under. */
  readonly actionTurn: (episode: OpenEpisode) => number
  /** Records what a step leaves behind, once the turn has been added to the episode. */
  readonly recordStep: (episode: OpenEpisode, turn: Trajectory.Turn, result: Env.StepResult, action: string) => void
  /** Brings the next observation into the context of an episode that goes on. */
  readonly continueEpisode: (episode: OpenEpisode, observation: string) => boolean
  /** The token segments of the finished episode's trajectory. */
  readonly segments: (episode: OpenEpisode) => Trajectory.Segment[]
  /** The finished episode's training samples, given its trajectory. */
  readonly samples: (episode: OpenEpisode, trajectory: Trajectory.Trajectory) => ReadonlyArray<Trajectory.Trajectory>
}
