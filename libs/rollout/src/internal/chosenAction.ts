/**
 * The action a slot plays this turn: read from the policy's sampled reply, or an exploration
 * move; and the turn it becomes once the environment has stepped.
 */
import type { Env, Sampler, Trajectory } from '@mtrl/core'
import type * as ActionFormat from '../ActionFormat.js'
import type { Options } from '../Rollout.js'
import type { Move } from './exploration.js'
import type { MemoryLayout } from './memoryLayout.js'
import type { OpenEpisode } from './openEpisode.js'
import type { RolloutState } from './rolloutState.js'

/**
 * An action chosen for a slot: `parsed` (the reply had the action format), `replaced` (the
 * reply's action was replaced by `Options.defaultAction`), `explored` (an exploration move).
 */
export interface ChosenAction {
  readonly slot: number
  readonly episode: OpenEpisode
  readonly action: string
  readonly parsed: boolean
  readonly replaced: boolean
  readonly explored: boolean
}

/** A reply's tokens without the stop token that ended it (a cut-off reply has none). */
export const replyBody = (stop: ReadonlySet<number>, generation: Sampler.Generation): Int32Array => {
  const last = generation.tokens[generation.tokens.length - 1]
  return generation.stopped && last !== undefined && stop.has(last) ? generation.tokens.subarray(0, generation.tokens.length - 1) : generation.tokens
}

/**
 * The action sent for a read reply: its own, or `defaultAction` (when set) in place of an
 * unparseable one or, with `checkAdmissible`, of one not in `admissible`.
 */
export const actionOfReply = (
  options: Options,
  admissible: ReadonlyArray<string> | undefined,
  reply: ActionFormat.Parsed
): { readonly action: string; readonly replaced: boolean } => {
  const allowed = options.checkAdmissible !== true || admissible === undefined || admissible.includes(reply.action)
  const replaced = options.defaultAction !== undefined && (!reply.parsed || !allowed)
  return { action: replaced ? options.defaultAction! : reply.action, replaced }
}

/**
 * The action of a slot's sampled reply. Counts the generated tokens (and a cut-off reply), and
 * records the reply and its tokens with their sampler log-probs in the episode.
 */
export const sampledChoice = (state: RolloutState, slot: number, episode: OpenEpisode, generation: Sampler.Generation): ChosenAction => {
  state.tally.generatedTokens += generation.tokens.length
  if (!generation.stopped) state.tally.cutOff++
  const reply = state.parse(state.generator.tokenizer.decode(replyBody(state.stop, generation)))
  const { action, replaced } = actionOfReply(state.options, episode.admissible, reply)
  episode.replies.push({ reasoning: reply.reasoning, action: reply.action })
  episode.segments.push({ kind: 'action', turn: state.layout.actionTurn(episode), tokens: generation.tokens, logprobs: generation.logprobs })
  return { slot, episode, action, parsed: reply.parsed, replaced, explored: false }
}

/** The action of an exploration move; records it and its tokens (no log-probs) in the episode. */
export const exploredChoice = (layout: MemoryLayout, move: Move, episode: OpenEpisode): ChosenAction => {
  episode.replies.push({ reasoning: '', action: move.action })
  episode.segments.push({ kind: 'action', turn: layout.actionTurn(episode), tokens: move.tokens })
  return { slot: move.slot, episode, action: move.action, parsed: true, replaced: false, explored: true }
}

/** The turn a chosen action became, given the environment's step result. */
export const turnOf = (chosen: ChosenAction, result: Env.StepResult): Trajectory.Turn => ({
  action: chosen.action,
  reward: result.reward,
  valid: result.info.valid && !chosen.replaced,
  parsed: chosen.parsed,
  score: result.info.score,
  maxScore: result.info.maxScore,
  ...(chosen.explored ? { explored: true } : {})
})
