/**
 * What an agent's model calls were, token for token, and how they become training samples.
 * Each call is recorded as the server saw it: the prompt ids as rendered, the completion ids as
 * sampled (the stop token included when it ended the reply), the sampler's log-probs, and how
 * many assistant messages of the prompt were re-encoded from text instead of taken as sampled
 * (`reencoded`: drift the trainer should know of).
 *
 * `samples` merges the calls of one episode: a call whose prompt extends an earlier sample's
 * tokens (its prompt, completions and what came between) continues that sample, so a
 * multi-turn conversation is one token sequence (`prompt | action | observation | action ...`,
 * the layout of mtrl's own rollouts, loss on the actions only); a call that does not (a history
 * rewritten, summarised or windowed, a sub-agent) starts a sample of its own, which shares the
 * episode's reward (step-wise samples, as SkyRL and slime train them).
 *
 * @since 0.1.0
 */
import { Tokenizer, type Trajectory } from '@mtrl/core'

/**
 * One model call.
 *
 * @category models
 * @since 0.1.0
 */
export interface Call {
  readonly prompt: Int32Array
  readonly completion: Int32Array
  /** Log-probs of the completion's tokens under the distribution they were sampled from. */
  readonly logprobs: Float32Array
  /** Assistant messages of the prompt encoded from their text (0 when every one was the server's own). */
  readonly reencoded: number
  /** The conversation as text: the request's messages then the reply (tool calls written out), for readers such as a judge. */
  readonly transcript?: ReadonlyArray<TranscriptMessage>
  /**
   * Constrained decoding only: the mask each completion token was drawn under (bit `id % 32` of
   * word `id >> 5` set: allowed). `logprobs` are under the masked distribution; a trainer
   * recomputing them applies the same masks to see the distribution the sampler drew from.
   */
  readonly masks?: ReadonlyArray<Int32Array>
}

/**
 * One message of a call's transcript: its role (`system`, `user`, `assistant`, `tool`) and its
 * text (an assistant's tool calls as `name(arguments)` lines after its content).
 *
 * @category models
 * @since 0.1.0
 */
export interface TranscriptMessage {
  readonly role: string
  readonly content: string
}

/**
 * One token sequence of an episode: its segments (`prompt`, then `action` and `observation`
 * turns, action log-probs attached) and how many calls it holds.
 *
 * @category models
 * @since 0.1.0
 */
export interface Sample {
  readonly segments: ReadonlyArray<Trajectory.Segment>
  readonly calls: number
  /** The indices (in call order) of its calls: by their last, samples end in the order the episode did. */
  readonly callIndices: ReadonlyArray<number>
}

const startsWith = (sequence: Int32Array, prefix: Int32Array): boolean => {
  if (prefix.length > sequence.length) return false
  for (let i = 0; i < prefix.length; i++) if (sequence[i] !== prefix[i]) return false
  return true
}

/**
 * The samples of one episode's calls, in call order (see the module comment).
 *
 * @example
 * import { Capture } from '@mtrl/serving'
 * const first = { prompt: Int32Array.of(1, 2), completion: Int32Array.of(3, 9), logprobs: Float32Array.of(-0.1, -0.2), reencoded: 0 }
 * const second = { prompt: Int32Array.of(1, 2, 3, 9, 4), completion: Int32Array.of(5, 9), logprobs: Float32Array.of(-0.3, -0.4), reencoded: 0 }
 * Capture.samples([first, second]) // one sample: prompt [1, 2], action [3, 9], observation [4], action [5, 9]
 *
 * @category destructors
 * @since 0.1.0
 */
export const samples = (calls: ReadonlyArray<Call>): ReadonlyArray<Sample> => {
  const open: Array<{ segments: Trajectory.Segment[]; tokens: Int32Array; calls: number; turns: number; callIndices: number[] }> = []
  for (const [index, call] of calls.entries()) {
    let into: (typeof open)[number] | undefined
    for (const s of open) if (startsWith(call.prompt, s.tokens) && (into === undefined || s.tokens.length > into.tokens.length)) into = s
    const action: Trajectory.Segment = {
      kind: 'action',
      turn: into?.turns ?? 0,
      tokens: call.completion,
      logprobs: call.logprobs,
      // constrained decoding: the trainer scores these tokens under the masks they were drawn under
      ...(call.masks === undefined ? {} : { masks: call.masks })
    }
    if (into === undefined) {
      open.push({
        segments: [{ kind: 'prompt', turn: 0, tokens: call.prompt }, action],
        tokens: Tokenizer.concat([call.prompt, call.completion]),
        calls: 1,
        turns: 1,
        callIndices: [index]
      })
      continue
    }
    const between = call.prompt.subarray(into.tokens.length)
    if (between.length > 0) into.segments.push({ kind: 'observation', turn: into.turns - 1, tokens: between.slice() })
    into.segments.push(action)
    into.tokens = Tokenizer.concat([call.prompt, call.completion])
    into.calls += 1
    into.turns += 1
    into.callIndices.push(index)
  }
  return open.map(({ segments, calls: n, callIndices }) => ({ segments, calls: n, callIndices }))
}
